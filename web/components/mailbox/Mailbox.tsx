"use client";
import { Fragment, useState } from "react";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/mailbox";
import { LoadError } from "../LoadError";
import { MailboxUnavailable, useMailbox, type DevMail } from "./hooks";

/** The standalone stack's outgoing mail, newest first, with each mail's text and links. */
export function Mailbox() {
  const t = useT();
  const { data, error, isLoading, mutate } = useMailbox();
  const [openId, setOpenId] = useState<string>();
  const open = data?.find((m) => m.id === openId) ?? data?.[0];

  if (error instanceof MailboxUnavailable) {
    return (
      <section className="card" aria-labelledby="mailbox-title">
        <h1 id="mailbox-title">{t("title")}</h1>
        <p>{t("unavailable")}</p>
      </section>
    );
  }
  return (
    <section className="stack" aria-labelledby="mailbox-title">
      <h1 id="mailbox-title">{t("title")}</h1>
      <p className="muted">{t("intro")}</p>
      {error ? (
        <LoadError message={t("loadFailed")} error={error} retry={mutate} />
      ) : null}
      {isLoading ? (
        <ul className="list" aria-label={t("loadingMails")}>
          <li className="skeleton-row" />
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length === 0 ? (
        <p className="empty">{t("empty")}</p>
      ) : (
        <div className="mailbox">
          <ul className="list" aria-label={t("mails")}>
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
                    {t("list.meta", { to: mail.to, date: formatDate(mail.createdAt), status: mail.status })}
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
  const t = useT();
  return (
    <article className="card" aria-labelledby="mail-subject" data-testid="mail-open">
      <h2 id="mail-subject">{mail.subject}</h2>
      <p className="muted">
        {mail.attempts > 1
          ? t("mail.metaAttempts", { to: mail.to, kind: mail.kind, status: mail.status, attempts: mail.attempts })
          : t("mail.meta", { to: mail.to, kind: mail.kind, status: mail.status })}
      </p>
      {mail.lastError ? <p className="alert alert-error">{mail.lastError}</p> : null}
      <pre className="mail-text">
        <Linkified text={mail.text} />
      </pre>
      <details>
        <summary>{t("mail.asHtml")}</summary>
        {/* The mail's own HTML, isolated: no scripts, no same-origin access. */}
        <iframe title={t("mail.htmlTitle", { subject: mail.subject })} sandbox="" srcDoc={mail.html} className="mail-html" />
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
