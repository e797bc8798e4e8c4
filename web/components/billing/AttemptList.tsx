"use client";
import { useId } from "react";
import type { Attempt } from "@/lib/billing";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/billing";

/** A delivery's attempts, oldest first: how each went, when, how long it took, and what came back. */
export function AttemptList({ attempts }: { attempts: Attempt[] }) {
  const t = useT();
  if (attempts.length === 0) return <p className="muted">{t("attempt.none")}</p>;
  return (
    <ol className="billing-attempts">
      {attempts.map((a) => (
        <AttemptItem key={a.id} attempt={a} />
      ))}
    </ol>
  );
}

function AttemptItem({ attempt: a }: { attempt: Attempt }) {
  const t = useT();
  const bodyId = useId();
  return (
    <li data-testid="attempt">
      <p className="billing-attempt-line">
        <span className={`badge badge-${a.succeeded ? "delivered" : "failed"}`}>{t("attempt.outcome", { outcome: a.succeeded ? "succeeded" : "failed" })}</span>{" "}
        {a.responseStatus != null ? t("attempt.status", { status: a.responseStatus }) : t("attempt.noAnswer")} ·{" "}
        <time dateTime={a.startedAt}>{formatDate(a.startedAt)}</time> · {t("attempts.duration", { ms: a.durationMs })} ·{" "}
        {t("attempts.triggerValue", { trigger: a.trigger })}
      </p>
      {a.error ? <p className="alert alert-error">{t("attempt.error", { error: a.error })}</p> : null}
      {a.responseBody ? (
        <>
          <p id={bodyId} className="billing-label">
            {t("attempt.body")}
          </p>
          {/* Up to 2,048 characters: it scrolls inside itself, by keyboard too. */}
          <pre className="billing-pre billing-pre-short" tabIndex={0} role="region" aria-labelledby={bodyId} data-testid="attempt-body">
            {a.responseBody}
          </pre>
        </>
      ) : null}
    </li>
  );
}
