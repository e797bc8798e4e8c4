"use client";
import type { ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/organization";
import { ConfirmDialog } from "../ConfirmDialog";
import type { Member } from "./types";

/**
 * "Make X an owner?": an owner has every right, deleting the organization and changing the
 * other owners included, and an admin cannot take it back; said before the role changes.
 */
export function ConfirmOwner({
  member,
  organization,
  onClose,
  onConfirm,
}: {
  member: Member | undefined;
  organization: string;
  onClose: () => void;
  onConfirm: (member: Member) => Promise<ApiError | null>;
}) {
  const t = useT();
  const who = member ? member.user.name || member.user.email : "";
  return (
    <ConfirmDialog
      open={member !== undefined}
      title={t("members.ownerTitle", { who })}
      confirmLabel={t("members.ownerConfirm")}
      busyLabel={t("members.ownerSaving")}
      onClose={onClose}
      onConfirm={() => (member ? onConfirm(member) : Promise.resolve(null))}
    >
      <p>{t("members.ownerText", { who, organization })}</p>
    </ConfirmDialog>
  );
}
