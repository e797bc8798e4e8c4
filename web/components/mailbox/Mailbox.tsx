"use client";
import { Fragment, useState } from "react";
import { formatDate } from "@/lib/format";
import { LoadError } from "../LoadError";
import { MailboxUnavailable, useMailbox, type DevMail } from "./hooks";

/** The standalone stack's outgoing mail, newest first, with each mail's text and links. */
export function Mailbox() {
  const { data, error, isLoading, mutate } = useMailbox();
  const [openId, setOpenId] = useState<string>();
  const open = data?.find((m) => m.id === openId) ?? data?.[0];

  if (error instanceof MailboxUnavailable) {
    return (
      <section className="card" aria-labelledby="mailbox-title">
        <h1 id="mailbox-title">Mailbox</h1>
        <p>The dev mailbox is available only in standalone mode, from the machine it runs on.</p>
      </section>
    );
  }
  return (
    <section className="stack" aria-labelledby="mailbox-title">
      <h1 id="mailbox-title">Mailbox</h1>
      <p className="muted">Every mail this standalone stack sent, newest first. Mails carry live links: keep them to yourself.</p>
      {error ? (
        <LoadError what="the mailbox" error={error} retry={mutate} />
      ) : null}
      {isLoading ? (
        <ul className="list" aria-label="Loading mails">
          <li className="skeleton-row" />
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length === 0 ? (
        <p className="empty">No mails yet. Mails appear here as the app sends them.</p>
      ) : (
        <div className="mailbox">
          <ul className="list" aria-label="Mails">
            {data?.map((mail) => (
              <li key={mail.id} data-testid="mail-row">
                <button
                  type="button"
                  className={`mail-item${open?.id === mail.id ? " mail-item-open" : ""}`}
                  aria-current={open?.id === mail.id || undefined}
                  onClick={() => setOpenId(mail.id)}
                >
                  <strong>{mail.subject}</strong>
                  <span className="muted">
                    to {mail.to} · {formatDate(mail.createdAt)} · {mail.status}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {open ? <MailView mail={open} /> : null}
        </div>
      )}
    </section>
  );
}

function MailView({ mail }: { mail: DevMail }) {
  return (
    <article className="card" aria-labelledby="mail-subject" data-testid="mail-open">
      <h2 id="mail-subject">{mail.subject}</h2>
      <p className="muted">
        To {mail.to} · {mail.kind} · {mail.status}
        {mail.attempts > 1 ? ` after ${mail.attempts} attempts` : ""}
      </p>
      {mail.lastError ? <p className="alert alert-error">{mail.lastError}</p> : null}
      <pre className="mail-text">
        <Linkified text={mail.text} />
      </pre>
      <details>
        <summary>As HTML</summary>
        {/* The mail's own HTML, isolated: no scripts, no same-origin access. */}
        <iframe title={`HTML of ${mail.subject}`} sandbox="" srcDoc={mail.html} className="mail-html" />
      </details>
    </article>
  );
}

/** Plain text with its http(s) links made clickable. */
function Linkified({ text }: { text: string }) {
  const parts = text.split(/(https?:\/\/[^\s<>"]+)/g);
  return (
    <>
      {parts.map((part, i) =>
        /^https?:\/\//.test(part) ? (
          <a key={i} href={part}>
            {part}
          </a>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}
