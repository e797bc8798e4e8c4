"use client";
import { authClient } from "@/lib/auth-client";
import { settle, type ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/organization";
import { ConfirmDialog } from "../ConfirmDialog";
import { refreshOrganizations, refreshSessionAndOrganizations } from "./hooks";
import type { Team } from "./types";

/**
 * "Remove team X?": its members stay in the organization but leave the team; the caller's
 * active team stops being active. Rendered beside the team's dialog, not in it: a dialog's
 * close event would reach the dialog around it through React and close that one too.
 */
export function ConfirmRemoveTeam({
  open,
  team,
  organizationId,
  organization,
  isActive,
  onClose,
  onRemoved,
}: {
  open: boolean;
  team: Team;
  organizationId: string;
  organization: string;
  isActive: boolean;
  onClose: () => void;
  onRemoved: () => void;
}) {
  const t = useT();

  async function remove(): Promise<ApiError | null> {
    // The server keeps a session's active team from being removed under it: stop it being
    // active first (the dialog said so).
    if (isActive) {
      const { error } = await settle(authClient.organization.setActiveTeam({ teamId: null }));
      if (error) return error;
    }
    const { error } = await settle(authClient.organization.removeTeam({ teamId: team.id, organizationId }));
    if (isActive) await refreshSessionAndOrganizations();
    if (error) return error;
    onRemoved();
    await refreshOrganizations();
    return null;
  }

  return (
    <ConfirmDialog
      open={open}
      title={t("removeTeam.title", { name: team.name })}
      confirmLabel={t("removeTeam.confirm", { name: team.name })}
      busyLabel={t("removeTeam.removing")}
      cancelLabel={t("removeTeam.keep")}
      onClose={onClose}
      onConfirm={remove}
    >
      <p>{t("removeTeam.text", { organization })}</p>
      {isActive ? <p>{t("removeTeam.active")}</p> : null}
    </ConfirmDialog>
  );
}
