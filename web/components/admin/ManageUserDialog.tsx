"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { components } from "@/lib/api/auth";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { resetCache } from "@/lib/session";
import { Dialog } from "../Dialog";
import { FormAlert } from "../FormAlert";
import { Button } from "../Button";
import { refreshUsers, type AdminUser } from "./hooks";

const BAN_LENGTHS = [
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86400 },
  { label: "7 days", seconds: 7 * 86400 },
  { label: "30 days", seconds: 30 * 86400 },
  { label: "Until unbanned", seconds: 0 },
];

type Action = "role" | "ban" | "unban" | "sessions" | "impersonate" | "two-factor" | "remove";

/** Gatehouse's own route, without a client-plugin method: the user, their second factor off. */
const resetTwoFactor = (userId: string) =>
  authClient.$fetch<components["schemas"]["UserResponse"]>("/admin/reset-two-factor", { method: "POST", body: { userId } });

/** Everything an admin does to one user: role, ban, sessions, impersonation, two-step verification, removal. */
export function ManageUserDialog({ user, onClose }: { user: AdminUser | undefined; onClose: () => void }) {
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
    <Dialog open title={`Manage ${user.name || user.email}`} onClose={onClose}>
      <p className="muted">
        {user.email} · joined {formatDate(user.createdAt)}
      </p>
      <FormAlert message={message?.text} tone={message?.tone} />

      <section className="dialog-section" aria-labelledby="role-title">
        <h3 id="role-title">Role</h3>
        <div className="inline-form">
          <label htmlFor="manage-role">Set role to</label>
          <select id="manage-role" value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="user">User</option>
            <option value="admin">Admin</option>
            {role !== "user" && role !== "admin" ? <option value={role}>{role}</option> : null}
          </select>
          <Button
            tone="secondary"
            busy={busy === "role"}
            busyLabel="Saving…"
            onClick={() => void run("role", () => settle(authClient.admin.setRole({ userId, role: role as "user" })), `Role set to ${role}.`)}
          >
            Save role
          </Button>
        </div>
      </section>

      <section className="dialog-section" aria-labelledby="ban-title">
        <h3 id="ban-title">Ban</h3>
        {user.banned ? (
          <>
            <p>
              Banned{user.banReason ? `: ${user.banReason}` : ""}
              {user.banExpires ? ` (until ${formatDate(user.banExpires)})` : " (until unbanned)"}.
            </p>
            <Button
              tone="secondary"
              busy={busy === "unban"}
              busyLabel="Unbanning…"
              onClick={() => void run("unban", () => settle(authClient.admin.unbanUser({ userId })), "User unbanned.")}
            >
              Unban
            </Button>
          </>
        ) : (
          <div className="form">
            <div className="field">
              <label htmlFor="ban-reason">Reason (seen by admins only)</label>
              <input id="ban-reason" value={banReason} onChange={(e) => setBanReason(e.target.value)} maxLength={500} />
            </div>
            <div className="field">
              <label htmlFor="ban-length">Ban for</label>
              <select id="ban-length" value={banLength} onChange={(e) => setBanLength(Number(e.target.value))}>
                {BAN_LENGTHS.map((l, i) => (
                  <option key={l.label} value={i}>
                    {l.label}
                  </option>
                ))}
              </select>
            </div>
            <Button
              tone="danger"
              busy={busy === "ban"}
              busyLabel="Banning…"
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
                  "User banned and signed out everywhere.",
                )
              }
            >
              Ban user
            </Button>
          </div>
        )}
      </section>

      <section className="dialog-section" aria-labelledby="access-title">
        <h3 id="access-title">Access</h3>
        <div className="actions">
          <Button
            tone="secondary"
            busy={busy === "sessions"}
            busyLabel="Revoking…"
            onClick={() => void run("sessions", () => settle(authClient.admin.revokeUserSessions({ userId })), "All of this user's sessions were revoked.")}
          >
            Revoke all sessions
          </Button>
          <Button
            tone="secondary"
            busy={busy === "impersonate"}
            busyLabel="Switching…"
            onClick={() =>
              void (async () => {
                // No refresh of the table: the cookie now belongs to the impersonated user.
                const ok = await run("impersonate", () => settle(authClient.admin.impersonateUser({ userId })), "Impersonating.", false);
                if (ok) {
                  await resetCache();
                  router.push("/");
                }
              })()
            }
          >
            Impersonate
          </Button>
        </div>
      </section>

      <section className="dialog-section" aria-labelledby="two-factor-title">
        <h3 id="two-factor-title">Two-step verification</h3>
        <p data-testid="two-factor-status">{user.twoFactorEnabled ? "On" : "Off"}</p>
        {!user.twoFactorEnabled ? null : confirmReset ? (
          <>
            <p>Their authenticator, backup codes and trusted browsers are forgotten, they are signed out everywhere and emailed.</p>
            <div className="actions">
              <Button
                tone="danger"
                busy={busy === "two-factor"}
                busyLabel="Resetting…"
                onClick={() =>
                  void (async () => {
                    const ok = await run(
                      "two-factor",
                      () => settle(resetTwoFactor(userId)),
                      "Two-step verification turned off; the user was signed out and emailed.",
                    );
                    if (ok) setConfirmReset(false);
                  })()
                }
              >
                Yes, reset two-step verification
              </Button>
              <button type="button" className="button button-secondary" onClick={() => setConfirmReset(false)}>
                Keep
              </button>
            </div>
          </>
        ) : (
          <Button tone="danger" busy={false} onClick={() => setConfirmReset(true)}>
            Reset two-step verification
          </Button>
        )}
      </section>

      <section className="dialog-section" aria-labelledby="remove-title">
        <h3 id="remove-title">Remove</h3>
        {confirmRemove ? (
          <div className="actions">
            <Button
              tone="danger"
              busy={busy === "remove"}
              busyLabel="Removing…"
              onClick={() =>
                void (async () => {
                  if (await run("remove", () => settle(authClient.admin.removeUser({ userId })), "User removed.")) onClose();
                })()
              }
            >
              Yes, remove {user.email}
            </Button>
            <button type="button" className="button button-secondary" onClick={() => setConfirmRemove(false)}>
              Keep
            </button>
          </div>
        ) : (
          <Button tone="danger" busy={false} onClick={() => setConfirmRemove(true)}>
            Remove user…
          </Button>
        )}
      </section>
    </Dialog>
  );
}
