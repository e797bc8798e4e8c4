"use client";
import { useEffect, useRef, useState } from "react";
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
  const [status, setStatus] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);
  // The codes replace the form that had the focus: move it to them.
  useEffect(() => heading.current?.focus(), []);
  const text = `${codes.join("\n")}\n`;

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setStatus("Copied to the clipboard.");
    } catch {
      setStatus("We could not copy them: select the codes and copy them yourself.");
    }
  }

  return (
    <div className="form backup-panel" data-testid="backup-codes">
      <h3 ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <p>
        Save these codes somewhere safe now: <strong>they will not be shown again.</strong> Each one signs you in once when
        you cannot use your authenticator app.
      </p>
      <ul className="backup-codes" aria-label="Backup codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="actions">
        <Button tone="secondary" busy={false} onClick={() => void copy()}>
          Copy
        </Button>
        <Button
          tone="secondary"
          busy={false}
          onClick={() => {
            saveFile(FILE_NAME, `Gatehouse backup codes (each works once)\n\n${text}`);
            setStatus(`Downloaded as ${FILE_NAME}.`);
          }}
        >
          Download
        </Button>
        <Button busy={false} onClick={onDone}>
          I have saved them
        </Button>
      </div>
      <p role="status" className="muted">
        {status}
      </p>
    </div>
  );
}
