"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/organization";
import { Button } from "../Button";
import { ConfirmDialog } from "../ConfirmDialog";
import { FormAlert } from "../FormAlert";
import { refreshOrganizations } from "./hooks";
import { roleLabel, type RoleName } from "./roles";
import type { FullOrganization, Invitation } from "./types";

/** Invitations not yet answered: send again (a fresh 48 hours) or cancel (after confirming). */
export function InvitationsSection({ org }: { org: FullOrganization }) {
  const t = useT();
  const [busy, setBusy] = useState<string>();
  const [notice, setNotice] = useState<{ tone: "error" | "success"; text: string }>();
  const [cancelling, setCancelling] = useState<Invitation>();
  const now = Date.now();
  const pending = org.invitations
    .filter((i) => i.status === "pending" && new Date(i.expiresAt).getTime() > now)
    .sort((a, b) => a.email.localeCompare(b.email));
  const teamName = (ids: string | null | undefined) =>
    (ids ?? "")
      .split(",")
      .map((id) => org.teams?.find((t) => t.id === id.trim())?.name)
      .filter(Boolean)
      .join(", ");

  async function run(key: string, call: () => Promise<{ error: ApiError | null }>, done: string) {
    setBusy(key);
    setNotice(undefined);
    const { error } = await call();
    setBusy(undefined);
    setNotice(error ? { tone: "error", text: describe(error) } : { tone: "success", text: done });
    if (!error) await refreshOrganizations();
  }

  const resend = (i: Invitation) =>
    run(
      `resend-${i.id}`,
      () =>
        settle(
          authClient.organization.inviteMember({
            email: i.email,
            role: i.role as RoleName,
            organizationId: org.id,
            resend: true,
            ...(i.teamId ? { teamId: i.teamId } : {}),
          }),
        ),
      t("invitations.resent", { email: i.email }),
    );
  async function cancel(i: Invitation): Promise<ApiError | null> {
    const { error } = await settle(authClient.organization.cancelInvitation({ invitationId: i.id }));
    if (error) return error;
    setNotice({ tone: "success", text: t("invitations.cancelled", { email: i.email }) });
    setCancelling(undefined);
    await refreshOrganizations();
    return null;
  }

  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">{t("invitations.title")}</h2>
      <FormAlert message={notice?.text} tone={notice?.tone} />
      {pending.length === 0 ? (
        <p className="empty">{t("invitations.empty")}</p>
      ) : (
        <ul className="list">
          {pending.map((i) => {
            const team = teamName(i.teamId);
            return (
              <li key={i.id} className="list-row" data-testid="invitation-row">
                <div>
                  <strong className="break">{i.email}</strong>
                  <p className="muted">
                    {team
                      ? t("invitations.detailsTeam", { role: roleLabel(i.role), team, expires: formatDate(i.expiresAt) })
                      : t("invitations.details", { role: roleLabel(i.role), expires: formatDate(i.expiresAt) })}
                  </p>
                </div>
                <div className="actions">
                  <Button tone="secondary" busy={busy === `resend-${i.id}`} busyLabel={t("invitations.resending")} onClick={() => void resend(i)} aria-label={t("invitations.resendAria", { email: i.email })}>
                    {t("invitations.resend")}
                  </Button>
                  <Button
                    tone="danger"
                    busy={false}
                    onClick={() => {
                      setNotice(undefined);
                      setCancelling(i);
                    }}
                    aria-label={t("invitations.cancelAria", { email: i.email })}
                  >
                    {t("invitations.cancel")}
                  </Button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <ConfirmDialog
        open={cancelling !== undefined}
        title={t("invitations.cancelTitle", { email: cancelling?.email ?? "" })}
        confirmLabel={t("invitations.cancelConfirm")}
        busyLabel={t("invitations.cancelling")}
        cancelLabel={t("invitations.keep")}
        onClose={() => setCancelling(undefined)}
        onConfirm={() => (cancelling ? cancel(cancelling) : Promise.resolve(null))}
      >
        <p>{t("invitations.cancelText", { email: cancelling?.email ?? "", organization: org.name })}</p>
      </ConfirmDialog>
    </section>
  );
}
