"use client";
import { useEffect, useState, type RefObject } from "react";
import { useT } from "@/lib/i18n/billing";
import { announce } from "../Announcer";
import { Button } from "../Button";

/** How long the button says "Copied" before it offers to copy again. */
const SHOWN_MS = 2500;

/**
 * Copies `text` to the clipboard. The button says "Copied" for a moment, and screen readers
 * hear it. A refused clipboard (no permission, an insecure page) selects `select`'s text
 * instead, and says to copy it by hand.
 */
export function CopyButton({ text, label, select }: { text: string; label: string; select?: RefObject<HTMLElement | null> }) {
  const t = useT();
  const [state, setState] = useState<"copied" | "failed">();
  useEffect(() => {
    if (state !== "copied") return;
    const timer = setTimeout(() => setState(undefined), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
      announce(t("copy.done"));
    } catch {
      const element = select?.current;
      if (element) window.getSelection()?.selectAllChildren(element);
      setState("failed");
    }
  }

  return (
    <div className="billing-copy">
      <Button tone="secondary" busy={false} onClick={() => void copy()} data-copied={state === "copied" || undefined}>
        {state === "copied" ? t("copy.copied") : label}
      </Button>
      {state === "failed" ? (
        <p role="alert" className="alert alert-error billing-copy-failed">
          {t("copy.failed")}
        </p>
      ) : null}
    </div>
  );
}
