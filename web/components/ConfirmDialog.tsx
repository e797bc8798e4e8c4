"use client";
import { useState, type ReactNode } from "react";
import { describe, type ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/common";
import { Button } from "./Button";
import { Dialog } from "./Dialog";
import { FormAlert } from "./FormAlert";

/**
 * "Are you sure?" before an action that cannot be taken back. `onConfirm` runs the action and
 * answers the server's refusal (shown in the dialog) or null; on success the owner closes it.
 * `ready` false keeps the button off (a typed confirmation not yet typed).
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busyLabel,
  cancelLabel,
  ready = true,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  cancelLabel?: string;
  ready?: boolean;
  onConfirm: () => Promise<ApiError | null>;
  onClose: () => void;
}) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const close = () => {
    setError(undefined);
    onClose();
  };
  async function confirm() {
    setBusy(true);
    setError(undefined);
    const refused = await onConfirm();
    setBusy(false);
    if (refused) setError(describe(refused));
  }
  return (
    <Dialog open={open} title={title} onClose={close}>
      <form
        method="post"
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) void confirm();
        }}
        noValidate
      >
        {children}
        <FormAlert message={error} />
        <div className="actions">
          <Button type="submit" tone="danger" busy={busy} busyLabel={busyLabel} disabled={!ready}>
            {confirmLabel}
          </Button>
          <button type="button" className="button button-secondary" onClick={close}>
            {cancelLabel ?? t("cancel")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
