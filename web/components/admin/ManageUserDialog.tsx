"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { components } from "@/lib/api/auth";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT, type t as translate } from "@/lib/i18n/admin";
import { resetCache } from "@/lib/session";
import { Dialog } from "../Dialog";
import { FormAlert } from "../FormAlert";
import { Button } from "../Button";
import { refreshUsers, type AdminUser } from "./hooks";

const BAN_LENGTHS: { label: Parameters<typeof translate>[0]; seconds: number }[] = [
  { label: "ban.lengthHour", seconds: 3600 },
  { label: "ban.lengthDay", seconds: 86400 },
  { label: "ban.lengthWeek", seconds: 7 * 86400 },
  { label: "ban.lengthMonth", seconds: 30 * 86400 },
  { label: "ban.lengthForever", seconds: 0 },
];

type Action = "role" | "ban" | "unban" | "sessions" | "impersonate" | "two-factor" | "remove";

/** Gatehouse's own route, without a client-plugin method: the user, their second factor off. */
const resetTwoFactor = (userId: string) =>
  authClient.$fetch<components["schemas"]["UserResponse"]>("/admin/reset-two-factor", { method: "POST", body: { userId } });

/** Everything an admin does to one user: role, ban, sessions, impersonation, two-step verification, removal. */
export function ManageUserDialog({ user, onClose }: { user: AdminUser | undefined; onClose: () => void }) {
  const t = useT();
  const router = useRouter();
  const [role, setRole] = useState(user?.role ?? "user");
  const [banReason, setBanReason] = useState("");
  const [banLength, setBanLength] = useState(0);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [confirmReset, setConfirmReset] = useState(false);
  const [busy, setBusy] = useState<Action>();
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string }>();

  if (!user) return <Dialog open={false} title="" onClose={onClose}>{null}</Dialog>;
  const userId = user.id;

  async function run(action: Action, call: () => Promise<{ error: ApiError | null }>, done: string, refresh = true) {
    setBusy(action);
    setMessage(undefined);
    const { error } = await call();
    setBusy(undefined);
    if (error) {
      setMessage({ tone: "error", text: describe(error) });
      return false;
    }
    setMessage({ tone: "success", text: done });
    if (refresh) await refreshUsers();
    return true;
  }

  const banExpiresIn = BAN_LENGTHS[banLength]?.seconds || undefined;

  return (
    <Dialog open title={t("manage.title", { name: user.name || user.email })} onClose={onClose}>
      <p className="muted">
        {t("manage.subtitle", { email: user.email, date: formatDate(user.createdAt) })}
      </p>
      <FormAlert message={message?.text} tone={message?.tone} />

      <section className="dialog-section" aria-labelledby="role-title">
        <h3 id="role-title">{t("role.title")}</h3>
        <div className="inline-form">
          <label htmlFor="manage-role">{t("role.setTo")}</label>
          <select id="manage-role" value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="user">{t("role.user")}</option>
            <option value="admin">{t("role.admin")}</option>
            {role !== "user" && role !== "admin" ? <option value={role}>{role}</option> : null}
          </select>
          <Button
            tone="secondary"
            busy={busy === "role"}
            busyLabel={t("role.saving")}
            onClick={() => void run("role", () => settle(authClient.admin.setRole({ userId, role: role as "user" })), t("role.saved", { role }))}
          >
            {t("role.save")}
          </Button>
        </div>
      </section>

      <section className="dialog-section" aria-labelledby="ban-title">
        <h3 id="ban-title">{t("ban.title")}</h3>
        {user.banned ? (
          <>
            <p>
              {user.banReason
                ? user.banExpires
                  ? t("ban.statusReasonUntil", { reason: user.banReason, date: formatDate(user.banExpires) })
                  : t("ban.statusReason", { reason: user.banReason })
                : user.banExpires
                  ? t("ban.statusUntil", { date: formatDate(user.banExpires) })
                  : t("ban.status")}
            </p>
            <Button
              tone="secondary"
              busy={busy === "unban"}
              busyLabel={t("ban.unbanning")}
              onClick={() => void run("unban", () => settle(authClient.admin.unbanUser({ userId })), t("ban.unbanned"))}
            >
              {t("ban.unban")}
            </Button>
          </>
        ) : (
          <div className="form">
            <div className="field">
              <label htmlFor="ban-reason">{t("ban.reason")}</label>
              <input id="ban-reason" value={banReason} onChange={(e) => setBanReason(e.target.value)} maxLength={500} />
            </div>
            <div className="field">
              <label htmlFor="ban-length">{t("ban.length")}</label>
              <select id="ban-length" value={banLength} onChange={(e) => setBanLength(Number(e.target.value))}>
                {BAN_LENGTHS.map((l, i) => (
                  <option key={l.label} value={i}>
                    {t(l.label)}
                  </option>
                ))}
              </select>
            </div>
            <Button
              tone="danger"
              busy={busy === "ban"}
              busyLabel={t("ban.banning")}
              onClick={() =>
                void run(
                  "ban",
                  () =>
                    settle(
                      authClient.admin.banUser({
                        userId,
                        ...(banReason.trim() ? { banReason: banReason.trim() } : {}),
                        ...(banExpiresIn ? { banExpiresIn } : {}),
                      }),
                    ),
                  t("ban.done"),
                )
              }
            >
              {t("ban.submit")}
            </Button>
          </div>
        )}
      </section>

      <section className="dialog-section" aria-labelledby="access-title">
        <h3 id="access-title">{t("access.title")}</h3>
        <div className="actions">
          <Button
            tone="secondary"
            busy={busy === "sessions"}
            busyLabel={t("access.revoking")}
            onClick={() => void run("sessions", () => settle(authClient.admin.revokeUserSessions({ userId })), t("access.revoked"))}
          >
            {t("access.revoke")}
          </Button>
          <Button
            tone="secondary"
            busy={busy === "impersonate"}
            busyLabel={t("access.switching")}
            onClick={() =>
              void (async () => {
                // No refresh of the table: the cookie now belongs to the impersonated user.
                const ok = await run("impersonate", () => settle(authClient.admin.impersonateUser({ userId })), t("access.impersonating"), false);
                if (ok) {
                  await resetCache();
                  router.push("/");
                }
              })()
            }
          >
            {t("access.impersonate")}
          </Button>
        </div>
      </section>

      <section className="dialog-section" aria-labelledby="two-factor-title">
        <h3 id="two-factor-title">{t("twoFactor.title")}</h3>
        <p data-testid="two-factor-status">{user.twoFactorEnabled ? t("twoFactor.on") : t("twoFactor.off")}</p>
        {!user.twoFactorEnabled ? null : confirmReset ? (
          <>
            <p>{t("twoFactor.confirmBody")}</p>
            <div className="actions">
              <Button
                tone="danger"
                busy={busy === "two-factor"}
                busyLabel={t("twoFactor.resetting")}
                onClick={() =>
                  void (async () => {
                    const ok = await run(
                      "two-factor",
                      () => settle(resetTwoFactor(userId)),
                      t("twoFactor.done"),
                    );
                    if (ok) setConfirmReset(false);
                  })()
                }
              >
                {t("twoFactor.confirm")}
              </Button>
              <button type="button" className="button button-secondary" onClick={() => setConfirmReset(false)}>
                {t("twoFactor.keep")}
              </button>
            </div>
          </>
        ) : (
          <Button tone="danger" busy={false} onClick={() => setConfirmReset(true)}>
            {t("twoFactor.reset")}
          </Button>
        )}
      </section>

      <section className="dialog-section" aria-labelledby="remove-title">
        <h3 id="remove-title">{t("remove.title")}</h3>
        {confirmRemove ? (
          <div className="actions">
            <Button
              tone="danger"
              busy={busy === "remove"}
              busyLabel={t("remove.removing")}
              onClick={() =>
                void (async () => {
                  if (await run("remove", () => settle(authClient.admin.removeUser({ userId })), t("remove.done"))) onClose();
                })()
              }
            >
              {t("remove.confirm", { email: user.email })}
            </Button>
            <button type="button" className="button button-secondary" onClick={() => setConfirmRemove(false)}>
              {t("remove.keep")}
            </button>
          </div>
        ) : (
          <Button tone="danger" busy={false} onClick={() => setConfirmRemove(true)}>
            {t("remove.start")}
          </Button>
        )}
      </section>
    </Dialog>
  );
}
