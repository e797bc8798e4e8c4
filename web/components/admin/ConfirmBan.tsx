"use client";
import { authClient } from "@/lib/auth-client";
import { settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/admin";
import { ConfirmDialog } from "../ConfirmDialog";
import { BAN_LENGTHS, type BanRequest } from "./actions";
import type { AdminUser } from "./hooks";

/**
 * "Ban X for 7 days?": what the ban does, for how long and with which reason, before it is
 * sent. Rendered beside the manage dialog, not in it: a dialog's close event would reach the
 * dialog around it through React and close that one too.
 */
export function ConfirmBan({ user, ban, onClose, onBanned }: { user: AdminUser; ban: BanRequest | undefined; onClose: () => void; onBanned: () => Promise<void> }) {
  const t = useT();
  const who = user.name || user.email;
  return (
    <ConfirmDialog
      open={ban !== undefined}
      title={t("ban.confirmTitle", { who })}
      confirmLabel={t("ban.confirm", { who })}
      busyLabel={t("ban.banning")}
      onClose={onClose}
      onConfirm={async () => {
        if (!ban) return null;
        const banExpiresIn = BAN_LENGTHS.find((l) => l.id === ban.length)?.seconds;
        const { error } = await settle(
          authClient.admin.banUser({
            userId: user.id,
            ...(ban.reason ? { banReason: ban.reason } : {}),
            ...(banExpiresIn ? { banExpiresIn } : {}),
          }),
        );
        if (error) return error;
        onClose();
        await onBanned();
        return null;
      }}
    >
      <p>{t("ban.confirmText", { who, length: ban?.length ?? "forever" })}</p>
      <p>{ban?.reason ? t("ban.confirmReason", { reason: ban.reason }) : t("ban.confirmNoReason")}</p>
    </ConfirmDialog>
  );
}
