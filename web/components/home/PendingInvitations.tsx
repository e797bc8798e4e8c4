"use client";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/home";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { refreshOrganizations, refreshSessionAndOrganizations } from "../organization/hooks";
import { roleLabel } from "../organization/roles";
import { useUserInvitations, type UserInvitation } from "./hooks";

/** What the user last did here, shown once the invitation has left the list. */
type Outcome = { kind: "joined" | "declined"; organizationId: string; organization: string };

/**
 * The signed-in user's pending invitations, each to accept or decline here; after joining,
 * the organization is one click away. Nothing shows while there are none.
 */
export function PendingInvitations({ userId }: { userId: string }) {
  const t = useT();
  const router = useRouter();
  const { data, error, mutate } = useUserInvitations(userId);
  const [busy, setBusy] = useState<string>();
  const [failure, setFailure] = useState<ApiError>();
  const [outcome, setOutcome] = useState<Outcome>();
  // The answered row goes away with its buttons: focus moves to what replaced it.
  const after = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!outcome) return;
    const target = after.current;
    (target?.querySelector("button") ?? target)?.focus();
  }, [outcome]);

  async function answer(invitation: UserInvitation, kind: Outcome["kind"]) {
    setBusy(`${kind}-${invitation.id}`);
    setFailure(undefined);
    const { error } =
      kind === "joined"
        ? await settle(authClient.organization.acceptInvitation({ invitationId: invitation.id }))
        : await settle(authClient.organization.rejectInvitation({ invitationId: invitation.id }));
    if (error) {
      setBusy(undefined);
      setFailure(error);
      // Expired or withdrawn meanwhile: the list shows what is left.
      await mutate();
      return;
    }
    // Accepting made it the session's active organization: the session is read again first.
    await (kind === "joined" ? refreshSessionAndOrganizations() : refreshOrganizations());
    setBusy(undefined);
    setOutcome({ kind, organizationId: invitation.organizationId, organization: invitation.organizationName });
  }

  async function open(organizationId: string) {
    setBusy("open");
    setFailure(undefined);
    // Another acceptance (here or in another tab) may have made a different one active.
    const { error } = await settle(authClient.organization.setActive({ organizationId }));
    if (error) {
      setBusy(undefined);
      setFailure(error);
      return;
    }
    await refreshSessionAndOrganizations();
    router.push("/organization/");
  }

  if (error) {
    return (
      <section className="card" aria-labelledby="home-invitations-title">
        <h2 id="home-invitations-title">{t("invitations.title")}</h2>
        <LoadError message={t("invitations.loadFailed")} error={error} retry={mutate} />
      </section>
    );
  }
  const invitations = data ?? [];
  if (invitations.length === 0 && !outcome && !failure) return null;
  return (
    <section className="card" aria-labelledby="home-invitations-title">
      <h2 id="home-invitations-title">{t("invitations.title")}</h2>
      {failure ? <FormAlert message={describe(failure)} /> : null}
      {outcome?.kind === "joined" ? (
        <div
          className="actions"
          ref={(element) => {
            after.current = element;
          }}
        >
          <p role="status" className="alert alert-success">
            {t("invitations.joined", { organization: outcome.organization })}
          </p>
          <Button
            busy={busy === "open"}
            busyLabel={t("invitations.opening")}
            onClick={() => void open(outcome.organizationId)}
          >
            {t("invitations.open", { organization: outcome.organization })}
          </Button>
        </div>
      ) : outcome ? (
        <p
          role="status"
          className="alert alert-success"
          tabIndex={-1}
          ref={(element) => {
            after.current = element;
          }}
        >
          {t("invitations.declined", { organization: outcome.organization })}
        </p>
      ) : null}
      {invitations.length > 0 ? (
        <>
          <p className="muted">{t("invitations.intro")}</p>
          <ul className="list">
            {invitations.map((i) => (
              <li key={i.id} className="list-row" data-testid="user-invitation-row">
                <div>
                  <strong className="break">{i.organizationName}</strong>
                  <p className="muted break">
                    {i.inviterEmail
                      ? t("invitations.detailsInviter", { role: roleLabel(i.role), inviter: i.inviterEmail, expires: formatDate(i.expiresAt) })
                      : t("invitations.details", { role: roleLabel(i.role), expires: formatDate(i.expiresAt) })}
                  </p>
                </div>
                <div className="actions">
                  <Button
                    busy={busy === `joined-${i.id}`}
                    busyLabel={t("invitations.accepting")}
                    disabled={busy !== undefined && busy !== `joined-${i.id}`}
                    aria-label={t("invitations.acceptAria", { organization: i.organizationName })}
                    onClick={() => void answer(i, "joined")}
                  >
                    {t("invitations.accept")}
                  </Button>
                  <Button
                    tone="secondary"
                    busy={busy === `declined-${i.id}`}
                    busyLabel={t("invitations.declining")}
                    disabled={busy !== undefined && busy !== `declined-${i.id}`}
                    aria-label={t("invitations.declineAria", { organization: i.organizationName })}
                    onClick={() => void answer(i, "declined")}
                  >
                    {t("invitations.decline")}
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
