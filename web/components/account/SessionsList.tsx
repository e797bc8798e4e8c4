"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { describeAgent, formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/account";
import { signInPath } from "@/lib/callback";
import { resetCache } from "@/lib/session";
import { FormAlert } from "../FormAlert";
import { Button } from "../Button";
import { LoadError } from "../LoadError";
import { useSessions } from "./hooks";

/**
 * The user's active sessions, this one marked; revoke one, or every other. While an admin
 * impersonates the user, the list is read-only: revoking would sign the real user out.
 */
export function SessionsList({ current }: { current: SessionData }) {
  const t = useT();
  const readOnly = Boolean(current.session.impersonatedBy);
  const router = useRouter();
  const { data, error, isLoading, mutate } = useSessions(current.user.id);
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const working = (key: string, on: boolean) =>
    setBusy((b) => {
      const next = new Set(b);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
  const [message, setMessage] = useState<string>();

  async function revoke(token: string) {
    working(token, true);
    setMessage(undefined);
    // Gone from the list at once; back if the server refuses.
    await mutate(
      async (list) => {
        const { error } = await settle(authClient.revokeSession({ token }));
        if (error) throw error;
        return list?.filter((s) => s.token !== token) ?? null;
      },
      { optimisticData: (list) => list?.filter((s) => s.token !== token) ?? null, rollbackOnError: true, revalidate: true },
    ).catch((e: ApiError) => setMessage(describe(e)));
    working(token, false);
  }

  async function revokeOthers() {
    working("others", true);
    setMessage(undefined);
    await mutate(
      async (list) => {
        const { error } = await settle(authClient.revokeOtherSessions());
        if (error) throw error;
        return list?.filter((s) => s.token === current.session.token) ?? null;
      },
      {
        optimisticData: (list) => list?.filter((s) => s.token === current.session.token) ?? null,
        rollbackOnError: true,
        revalidate: true,
      },
    ).catch((e: ApiError) => setMessage(describe(e)));
    working("others", false);
  }

  // Listing sessions needs a recent sign-in; an older one can only be renewed by signing in.
  async function signInAgain() {
    await settle(authClient.signOut());
    await resetCache();
    router.push(signInPath("/account/"));
  }

  const sessions = [...(data ?? [])].sort((a, b) =>
    a.token === current.session.token ? -1 : b.token === current.session.token ? 1 : +new Date(b.updatedAt) - +new Date(a.updatedAt),
  );
  const others = sessions.filter((s) => s.token !== current.session.token).length;

  return (
    <section className="card" aria-labelledby="sessions-title" aria-busy={isLoading || undefined}>
      <h2 id="sessions-title">{t("sessions.title")}</h2>
      <FormAlert message={message} />
      {readOnly ? (
        <p className="alert alert-info" role="note">
          {t("sessions.impersonating")}
        </p>
      ) : null}
      {error?.code === "SESSION_NOT_FRESH" ? (
        <div role="alert" className="alert alert-error">
          {t("sessions.notFresh")}{" "}
          <button type="button" className="link-button" onClick={() => void signInAgain()}>
            {t("sessions.signInAgain")}
          </button>
        </div>
      ) : error ? (
        <LoadError message={t("sessions.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("sessions.loading")}>
          <li className="skeleton-row" />
          <li className="skeleton-row" />
        </ul>
      ) : (
        <ul className="list">
          {sessions.map((s) => {
            const isCurrent = s.token === current.session.token;
            return (
              <li key={s.id} className="list-row" data-testid="session-row">
                <div>
                  <strong>{describeAgent(s.userAgent)}</strong>
                  {isCurrent ? <span className="badge">{t("sessions.thisDevice")}</span> : null}
                  <p className="muted">
                    {t("sessions.signedIn", { address: s.ipAddress || t("sessions.unknownAddress"), date: formatDate(s.createdAt) })}
                  </p>
                </div>
                {isCurrent || readOnly ? null : (
                  <Button
                    tone="secondary"
                    busy={busy.has(s.token)}
                    busyLabel={t("sessions.revoking")}
                    onClick={() => void revoke(s.token)}
                    aria-label={t("sessions.revokeSession", { device: describeAgent(s.userAgent), date: formatDate(s.createdAt) })}
                  >
                    {t("sessions.revoke")}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {!isLoading && !error && others === 0 ? <p className="muted">{t("sessions.noOthers")}</p> : null}
      {others > 0 && !readOnly ? (
        <Button tone="danger" busy={busy.has("others")} busyLabel={t("sessions.signingOutOthers")} onClick={() => void revokeOthers()}>
          {t("sessions.signOutOthers")}
        </Button>
      ) : null}
    </section>
  );
}
