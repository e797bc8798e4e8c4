"use client";
import { useEffect, useId, useRef, type ReactNode } from "react";
import { useT } from "@/lib/i18n/common";

/** Focus back where it was when the dialog opened (also when its owner removes it). */
function useReturnFocus(open: boolean) {
  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [open]);
}

/**
 * A modal built on `<dialog>`: the browser keeps focus inside, Escape closes it, and focus
 * returns to the button that opened it.
 */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useReturnFocus(open);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="link-button" onClick={onClose} aria-label={t("close")}>
          ✕
        </button>
      </div>
      {open ? children : null}
    </dialog>
  );
}
