// Small helpers shared by the mail-flow suites (moves with them into the main suite).
import assert from "node:assert/strict";
import { AUTH_URL, BASE_URL, GATEHOUSE, PASSWORD, newBrowser, parseSetCookie, splitSigned, uniqueEmail } from "../helpers.mjs";
import { latestMail } from "../mail.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const PREFIX = SECURE ? "__Secure-better-auth" : "better-auth";
export const SESSION_COOKIE = `${PREFIX}.session_token`;
export const SESSION_DATA_COOKIE = `${PREFIX}.session_data`;
export const DONT_REMEMBER_COOKIE = `${PREFIX}.dont_remember`;
export const UNAUTHORIZED = { message: "Unauthorized", code: "UNAUTHORIZED" };
export const ORIGIN = new URL(BASE_URL).origin;

/** How long to wait before concluding that no mail was sent: the reference writes its mail
 * log before answering; Gatehouse's mailer is asynchronous, so give it longer. */
const NO_MAIL_WAIT_MS = process.env.MAIL_LOG ? 300 : 1500;

/**
 * One raw request to `$AUTH_URL<path>`, redirects NOT followed, through a browser's jar
 * (its cookies, Origin) or, without `jar`, cookie-less with the site's Origin.
 * `query` is appended with URLSearchParams; `path` may already carry a query string.
 */
export async function call(method, path, { jar, body, query, headers = {} } = {}) {
  const qs = query ? `${path.includes("?") ? "&" : "?"}${new URLSearchParams(query)}` : "";
  const init = {
    method,
    redirect: "manual",
    headers: { ...(jar ? {} : { origin: ORIGIN }), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
  const res = await (jar ? jar.fetch : fetch)(`${AUTH_URL}${path}${qs}`, init);
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, location: res.headers.get("location"), text, json, setCookies: res.headers.getSetCookie() };
}

/** GET an absolute link (from a mail) like a browser would: its cookies, no redirect following. */
export async function openLink(url, jar) {
  const res = await (jar ? jar.fetch : fetch)(url, { redirect: "manual" });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, location: res.headers.get("location"), text, json, setCookies: res.headers.getSetCookie() };
}

/** A new user signed up in a new browser: {b, email, token, user}. */
export async function signUp(prefix = "mail", extra = {}) {
  const b = newBrowser();
  const email = uniqueEmail(prefix);
  const res = await b.client.signUp.email({ name: "Mail Flow User", email, password: PASSWORD, ...extra });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { b, email, token: res.data.token, user: res.data.user };
}

/** {session, user} of the browser's session, or null. */
export async function sessionOf(b) {
  const { data, error } = await b.client.getSession();
  assert.equal(error, null, JSON.stringify(error));
  return data;
}

/** HTTP status of a sign-in from a fresh browser. */
export async function signInStatus(email, password) {
  const b = newBrowser();
  await b.client.signIn.email({ email, password });
  return b.jar.lastResponse.status;
}

/** A JSON answer with exactly `body` and (unless `setsCookies`) no Set-Cookie. */
export function assertJson(res, status, body, what, { setsCookies = false } = {}) {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, what);
  assert.deepEqual(res.json, body, `${what}: exact body`);
  if (!setsCookies) assert.deepEqual(res.setCookies, [], `${what}: no Set-Cookie`);
}

/** A 302 to exactly `location` with an empty body (Set-Cookie checked by the caller). */
export function assertRedirect(res, location, what) {
  assert.equal(res.status, 302, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.location, location, `${what}: Location`);
  assert.equal(res.text, "", `${what}: empty body`);
}

/** The newest mail to `to` sent at or after `after`; fails the test if none arrives. */
export async function mailTo(to, after) {
  const mail = await latestMail(to, { after });
  assert.ok(mail, `a mail to ${to} was sent`);
  assert.ok(mail.url && mail.token, `the mail to ${to} carries a link and a token: ${JSON.stringify(mail.raw)}`);
  return mail;
}

/** Asserts that nothing was mailed to `to` since `after`. */
export async function assertNoMail(to, after, what) {
  const mail = await latestMail(to, { after, timeoutMs: NO_MAIL_WAIT_MS });
  assert.equal(mail, null, `${what}: no mail to ${to}, got ${JSON.stringify(mail?.raw)}`);
}

/** Deletes the signed-up user `u` ({b, email}): with its password, and through the mailed
 * link when the server confirms deletions by mail (see delete-user.test.mjs). */
export async function deleteAccount(u) {
  const t = Date.now();
  const res = await call("POST", "/delete-user", { jar: u.b.jar, body: { password: PASSWORD } });
  assert.equal(res.status, 200, `delete-user: ${res.text}`);
  if (res.json?.message === "Verification email sent") {
    const mail = await mailTo(u.email, t);
    const done = await call("GET", "/delete-user/callback", { jar: u.b.jar, query: { token: mail.token } });
    assert.equal(done.status, 200, `delete-user/callback: ${done.text}`);
  }
}

/** The session_token Set-Cookie of a response, parsed (parseSetCookie) plus its unsigned `token`; or undefined. */
export function sessionCookieOf(res) {
  const found = res.setCookies.map(parseSetCookie).filter((c) => c.name === SESSION_COOKIE);
  if (!found.length) return undefined;
  const c = found[found.length - 1];
  return { ...c, token: c.value ? splitSigned(c.value).value : "" };
}

/**
 * Gatehouse mails random tokens, stored hashed, where better-auth mails JWTs (verification and
 * change of email) — the main README's "stricter" list. Its tokens are 32 letters and digits
 * (a password reset's: 24).
 */
export const GATEHOUSE_TOKEN = /^[A-Za-z0-9]{32}$/;

export { AUTH_URL, BASE_URL, GATEHOUSE, PASSWORD, newBrowser, uniqueEmail, latestMail };
