"use client";
import { describe, type ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/common";

/**
 * The one block a read that failed shows: what could not be loaded, why, and a way to ask
 * again. Announced when it appears.
 */
export function LoadError({ message, error, retry }: { message: string; error: ApiError | Error; retry: () => unknown }) {
  const t = useT();
  // The API's refusals are worded by the one table in errors.ts; other failures (a fetch of
  // the dev mailbox) carry their own message.
  const why = error instanceof Error ? error.message : describe(error);
  return (
    <div role="alert" className="alert alert-error">
      {message} {why}{" "}
      <button type="button" className="link-button" onClick={() => void retry()}>
        {t("tryAgain")}
      </button>
    </div>
  );
}
