// Reading the mails a server under test sent, for the mail-flow suites
// (mail-flows/*.test.mjs). Tests take tokens ONLY from mails, never from a database.
//
// Two sources:
//  * MAIL_LOG set (the better-auth reference server): that JSONL file, one record per
//    mail, appended before the triggering HTTP response is sent:
//      {ts, kind, to, subject, url, token, ...extra}   (see shared/reference/better-auth-server/server.mjs)
//  * otherwise Gatehouse's dev mailbox: GET $GATEHOUSE_URL/api/dev/mailbox?to=<email>
//    → {mails: [{id, to, kind, subject, text, html, createdAt, ...}]}, newest first
//    (gateway/src/routes/mailbox.rs; needs DEV_MAILBOX on and a loopback client). There
//    the link is the first http(s) URL of `text`, and the token is read off that link.
import { readFileSync } from "node:fs";
import { BASE_URL } from "./helpers.mjs";

const MAIL_LOG = process.env.MAIL_LOG || "";
const POLL_MS = 50;

/** `token` query parameter of the link, else its last path segment (/reset-password/<token>). */
function tokenOf(url) {
  try {
    const u = new URL(url);
    return u.searchParams.get("token") ?? decodeURIComponent(u.pathname.split("/").filter(Boolean).pop() ?? "");
  } catch {
    return null;
  }
}

/** All mails to `to` (case-insensitive), oldest first, as {to, subject, kind, url, token, at, seq, text, html, raw}. */
async function mailsTo(to) {
  const want = to.toLowerCase();
  if (MAIL_LOG) {
    let lines;
    try {
      lines = readFileSync(MAIL_LOG, "utf8").split("\n");
    } catch (e) {
      if (e.code === "ENOENT") return []; // nothing sent yet
      throw e;
    }
    const out = [];
    lines.forEach((line, seq) => {
      if (!line.trim()) return;
      const rec = JSON.parse(line);
      if (String(rec.to).toLowerCase() !== want) return;
      out.push({ to: rec.to, subject: rec.subject, kind: rec.kind, url: rec.url, token: rec.token, at: Date.parse(rec.ts), seq, raw: rec });
    });
    return out;
  }
  const res = await fetch(`${BASE_URL}/api/dev/mailbox?limit=100&to=${encodeURIComponent(to)}`);
  if (!res.ok) throw new Error(`GET /api/dev/mailbox → ${res.status}: is DEV_MAILBOX on (or MAIL_LOG set for the reference)?`);
  const { mails } = await res.json();
  return mails
    .filter((m) => String(m.to).toLowerCase() === want)
    .reverse() // the mailbox lists newest first
    .map((m, seq) => {
      const url = (m.text ?? "").match(/https?:\/\/[^\s<>"')\]]+/)?.[0] ?? null;
      return { to: m.to, subject: m.subject, kind: m.kind, url, token: url && tokenOf(url), at: Date.parse(m.createdAt), seq, id: m.id, text: m.text, html: m.html, raw: m };
    });
}

/**
 * The newest mail to `to` (case-insensitive), polling for up to `timeoutMs`; null if none came.
 * `after`: only mails sent after it, given either as a time (ms since epoch or a Date, taken
 * just before the request that should send the mail) or as a mail this function returned
 * earlier (only strictly newer ones then).
 * @returns {Promise<null | {to: string, subject: string, kind?: string, url: string, token: string, at: number, text?: string, html?: string, raw: object}>}
 */
export async function latestMail(to, { after, timeoutMs = 3000 } = {}) {
  const isNewer = (m) => {
    if (after == null) return true;
    if (typeof after === "object" && !(after instanceof Date)) {
      return after.id !== undefined ? m.id !== after.id && m.at >= after.at : m.seq > after.seq;
    }
    return m.at >= Number(after);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = (await mailsTo(to)).filter(isNewer);
    if (mails.length) return mails[mails.length - 1];
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
