"use client";
import { authClient } from "@/lib/auth-client";
import { settle } from "@/lib/errors";
import { describeAgent, formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/admin";
import { Button } from "../Button";
import { LoadError } from "../LoadError";
import type { Run } from "./actions";
import { useUserSessions, type AdminUser } from "./hooks";

/**
 * The user's sessions (device, address, when signed in, when it ends), each revocable while it
 * runs, and all of them at once. Expired and impersonation sessions are marked as such.
 */
export function UserSessions({ adminId, user, busy, run }: { adminId: string; user: AdminUser; busy: string | undefined; run: Run }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useUserSessions(adminId, user.id);
  const now = Date.now();
  return (
    <section className="dialog-section" aria-labelledby="sessions-title" aria-busy={isLoading || undefined}>
      <h3 id="sessions-title">{t("sessions.title")}</h3>
      {error ? (
        <LoadError message={t("sessions.loadFailed")} error={error} retry={mutate} />
      ) : isLoading || !data ? (
        <ul className="list" aria-label={t("sessions.loading")}>
          <li className="skeleton-row" />
        </ul>
      ) : data.length === 0 ? (
        <p className="muted">{t("sessions.empty")}</p>
      ) : (
        <ul className="list" aria-label={t("sessions.listAria", { name: user.name || user.email })}>
          {data.map((s) => {
            const device = describeAgent(s.userAgent);
            const expired = new Date(s.expiresAt).getTime() <= now;
            const when = {
              address: s.ipAddress || t("sessions.unknownAddress"),
              created: formatDate(s.createdAt),
              expires: formatDate(s.expiresAt),
            };
            return (
              <li key={s.id} className="list-row" data-testid="user-session-row">
                <div>
                  <strong>{device}</strong>
                  {s.impersonatedBy ? <span className="badge">{t("sessions.impersonation")}</span> : null}
                  {expired ? <span className="badge">{t("sessions.expired")}</span> : null}
                  <p className="muted break">{expired ? t("sessions.detailsExpired", when) : t("sessions.details", when)}</p>
                </div>
                {expired ? null : (
                  <Button
                    tone="secondary"
                    busy={busy === `session-${s.id}`}
                    busyLabel={t("sessions.revoking")}
                    aria-label={t("sessions.revokeAria", { device, date: when.created })}
                    onClick={() =>
                      void run(`session-${s.id}`, () => settle(authClient.admin.revokeUserSession({ sessionToken: s.token })), t("sessions.revoked", { device }))
                    }
                  >
                    {t("sessions.revoke")}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <div className="actions">
        <Button
          tone="secondary"
          busy={busy === "sessions"}
          busyLabel={t("access.revoking")}
          onClick={() => void run("sessions", () => settle(authClient.admin.revokeUserSessions({ userId: user.id })), t("access.revoked"))}
        >
          {t("access.revoke")}
        </Button>
      </div>
    </section>
  );
}
