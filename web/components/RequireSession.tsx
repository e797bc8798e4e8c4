"use client";
import { useEffect, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { signInPath } from "@/lib/callback";
import { useSession } from "@/lib/session";
import type { SessionData } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/common";
import { LoadError } from "./LoadError";

/**
 * Renders `children` with the signed-in session; a signed-out visitor is sent to sign-in with
 * a callback back to where they were going.
 */
export function RequireSession({ children }: { children: (session: SessionData) => ReactNode }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useSession();
  const router = useRouter();
  const signedOut = !isLoading && !error && !data;

  useEffect(() => {
    if (signedOut) {
      router.replace(signInPath(window.location.pathname + window.location.search));
    }
  }, [signedOut, router]);

  if (error) {
    return (
      <div className="card">
        <LoadError message={t("loadSessionFailed")} error={error} retry={mutate} />
      </div>
    );
  }
  if (!data) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">{t("loading")}</span>
      </div>
    );
  }
  return <>{children(data)}</>;
}
