"use client";
import { useEffect, useRef, useState } from "react";
import { useT } from "@/lib/i18n/account";
import { rich } from "@/lib/i18n/rich";
import { Button } from "../Button";

const FILE_NAME = "gatehouse-backup-codes.txt";

/** Saves `text` as a file the way a link with `download` does (no server round trip). */
function saveFile(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  // After the click has handed the file to the browser.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Backup codes, shown once (the server keeps only their hashes): each signs in once without
 * the authenticator app. Copy and Download so they get saved somewhere.
 */
export function BackupCodes({ codes, title, onDone }: { codes: string[]; title: string; onDone: () => void }) {
  const t = useT();
  // Kept as what happened, worded at render time (the language can change meanwhile).
  const [status, setStatus] = useState<"copied" | "copyFailed" | "downloaded">();
  const heading = useRef<HTMLHeadingElement>(null);
  // The codes replace the form that had the focus: move it to them.
  useEffect(() => heading.current?.focus(), []);
  const text = `${codes.join("\n")}\n`;

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setStatus("copied");
    } catch {
      setStatus("copyFailed");
    }
  }

  return (
    <div className="form backup-panel" data-testid="backup-codes">
      <h3 ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <p>{rich(t("backupCodes.intro"), { strong: (text) => <strong>{text}</strong> })}</p>
      <ul className="backup-codes" aria-label={t("backupCodes.list")}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="actions">
        <Button tone="secondary" busy={false} onClick={() => void copy()}>
          {t("backupCodes.copy")}
        </Button>
        <Button
          tone="secondary"
          busy={false}
          onClick={() => {
            saveFile(FILE_NAME, `${t("backupCodes.fileHeading")}\n\n${text}`);
            setStatus("downloaded");
          }}
        >
          {t("backupCodes.download")}
        </Button>
        <Button busy={false} onClick={onDone}>
          {t("backupCodes.done")}
        </Button>
      </div>
      <p role="status" className="muted">
        {status === "copied"
          ? t("backupCodes.copied")
          : status === "copyFailed"
            ? t("backupCodes.copyFailed")
            : status === "downloaded"
              ? t("backupCodes.downloaded", { file: FILE_NAME })
              : undefined}
      </p>
    </div>
  );
}
