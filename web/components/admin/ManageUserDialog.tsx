"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/admin";
import { resetCache } from "@/lib/session";
import { Dialog } from "../Dialog";
import { FormAlert } from "../FormAlert";
import { Button } from "../Button";
import type { BanRequest } from "./actions";
import { BanSection } from "./BanSection";
import { ConfirmBan } from "./ConfirmBan";
import { refreshUserSessions, refreshUsers, type AdminUser } from "./hooks";
import { TwoFactorSection } from "./TwoFactorSection";
import { UserFacts } from "./UserFacts";
import { UserSessions } from "./UserSessions";

/**
 * Everything an admin does to one user, as `adminId`: see whether their address is verified
 * and whether they are banned, set their role, ban them, see and end their sessions,
 * impersonate them, reset their two-step verification, remove them.
 */
export function ManageUserDialog({ adminId, user, onClose }: { adminId: string; user: AdminUser | undefined; onClose: () => void }) {
  const t = useT();
  const router = useRouter();
  const [role, setRole] = useState(user?.role ?? "user");
  const [ban, setBan] = useState<BanRequest>();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [busy, setBusy] = useState<string>();
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string }>();

  if (!user) return <Dialog open={false} title="" onClose={onClose}>{null}</Dialog>;
  const userId = user.id;
  // A ban, a revocation or a reset ends sessions too: both reads go again.
  const refresh = () => Promise.all([refreshUsers(), refreshUserSessions(userId)]);

  async function run(key: string, call: () => Promise<{ error: ApiError | null }>, done: string, again = true) {
    setBusy(key);
    setMessage(undefined);
    const { error } = await call();
    setBusy(undefined);
    if (error) {
      setMessage({ tone: "error", text: describe(error) });
      return false;
    }
    setMessage({ tone: "success", text: done });
    if (again) await refresh();
    return true;
  }

  return (
    <>
      <Dialog open title={t("manage.title", { name: user.name || user.email })} onClose={onClose}>
        <p className="muted">{t("manage.subtitle", { email: user.email, date: formatDate(user.createdAt) })}</p>
        <FormAlert message={message?.text} tone={message?.tone} />
        <UserFacts user={user} />

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

        <BanSection
          user={user}
          busy={busy}
          run={run}
          onAsk={(request) => {
            setMessage(undefined);
            setBan(request);
          }}
        />
        <UserSessions adminId={adminId} user={user} busy={busy} run={run} />

        <section className="dialog-section" aria-labelledby="access-title">
          <h3 id="access-title">{t("access.title")}</h3>
          <Button
            tone="secondary"
            busy={busy === "impersonate"}
            busyLabel={t("access.switching")}
            onClick={() =>
              void (async () => {
                // No refresh of the table: the cookie now belongs to the impersonated user.
                if (await run("impersonate", () => settle(authClient.admin.impersonateUser({ userId })), t("access.impersonating"), false)) {
                  await resetCache();
                  router.push("/");
                }
              })()
            }
          >
            {t("access.impersonate")}
          </Button>
        </section>

        <TwoFactorSection user={user} busy={busy} run={run} />

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
      <ConfirmBan
        user={user}
        ban={ban}
        onClose={() => setBan(undefined)}
        onBanned={async () => {
          setMessage({ tone: "success", text: t("ban.done") });
          await refresh();
        }}
      />
    </>
  );
}
