// Shared helpers for the conformance suites.
import { execSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createAuthClient } from "better-auth/client";
import { CookieJar, parseSetCookie } from "./cookie-jar.mjs";

const raw = process.env.GATEHOUSE_URL;
if (!raw) {
  throw new Error(
    "GATEHOUSE_URL is not set: point it at a running server, e.g. GATEHOUSE_URL=http://localhost:3000"
  );
}
/** Site origin, e.g. http://localhost:3000 (no trailing slash). */
export const BASE_URL = raw.replace(/\/+$/, "");
/** Where the auth API lives. */
export const AUTH_URL = `${BASE_URL}/api/auth`;

export const SESSION_COOKIE = "better-auth.session_token";
export const DONT_REMEMBER_COOKIE = "better-auth.dont_remember";
export const SESSION_DATA_COOKIE = "better-auth.session_data";

export const PASSWORD = "Correct-Horse-9-battery";

/**
 * Which server is under test: Gatehouse unless `REFERENCE=1` (or `MAIL_LOG`, which only the
 * reference server writes). Used only where Gatehouse deliberately differs, each case named
 * in the README ("Where Gatehouse differs on purpose").
 */
export const GATEHOUSE = !(process.env.REFERENCE === "1" || process.env.MAIL_LOG);

/**
 * Fields Gatehouse adds to every user: `language` (better-auth `user.additionalFields`) and
 * `twoFactorEnabled` (the twoFactor plugin's field, always on in Gatehouse).
 */
export const EXTRA_USER_KEYS = GATEHOUSE ? ["language", "twoFactorEnabled"] : [];

const RUN_ID = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
let seq = 0;
/** A unique, never-reused email for this run (lower-case unless `prefix` has capitals). */
export function uniqueEmail(prefix = "user") {
  seq += 1;
  return `${prefix}-${RUN_ID}-${seq}@example.com`;
}

/**
 * One simulated browser: its own cookie jar and an official client using it.
 * `opts.origin` is handed to the jar (see CookieJar); `opts.plugins` to
 * createAuthClient (e.g. `[usernameClient()]` from "better-auth/client/plugins").
 */
export function newBrowser(opts = {}) {
  const { plugins, ...jarOpts } = opts;
  const jar = new CookieJar(BASE_URL, jarOpts);
  const client = createAuthClient({
    baseURL: BASE_URL,
    fetchOptions: { customFetchImpl: jar.fetch },
    ...(plugins ? { plugins } : {}),
  });
  return { jar, client };
}

/** A unique username for this run: `<prefix>_<run id><n>` (3–30 chars of [a-zA-Z0-9_]). */
export function uniqueUsername(prefix = "u") {
  seq += 1;
  const name = `${prefix}_${RUN_ID}${seq.toString(36)}`;
  if (name.length > 30) throw new Error(`username ${name} is longer than 30 chars: use a shorter prefix`);
  return name;
}

/** POST JSON straight to an auth endpoint through a jar (bypassing the client). */
export async function postJson(jar, path, body) {
  const res = await jar.fetch(`${AUTH_URL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

/** GET an auth endpoint with an explicit Cookie header (no jar), e.g. to replay a stolen cookie. */
export async function getWithCookie(path, cookieHeader) {
  const res = await fetch(`${AUTH_URL}${path}`, {
    headers: { cookie: cookieHeader, origin: new URL(BASE_URL).origin },
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

/**
 * Split a signed cookie value (as it appears in Set-Cookie, percent-encoded)
 * into its unsigned value and signature.
 */
export function splitSigned(cookieValue) {
  const decoded = decodeURIComponent(cookieValue);
  const dot = decoded.lastIndexOf(".");
  return { value: decoded.slice(0, dot), signature: decoded.slice(dot + 1), decoded };
}

/** Standard base64 HMAC-SHA256 (44 chars with "=" padding). */
export const SIGNATURE_RE = /^[A-Za-z0-9+/]{43}=$/;
/** better-auth generateId(32). */
export const TOKEN_RE = /^[A-Za-z0-9]{32}$/;

/** Assert-friendly view of the Set-Cookie headers of a jar's last response. */
export function lastCookie(jar, name) {
  const found = jar.lastSetCookie(name);
  return found.length ? found[found.length - 1] : undefined;
}

/** Quote one argument for a POSIX shell. */
export function shellQuote(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

/**
 * Make the user with `email` an admin (role "admin") by running the shell command in
 * `ADMIN_GRANT_CMD` with the email appended as its last (quoted) argument, e.g.
 *   ADMIN_GRANT_CMD="gatehouse admin grant --email"
 *   ADMIN_GRANT_CMD="DB_PATH=/tmp/ref.sqlite node /tmp/refsrv/make-admin.mjs --email"
 * Throws (failing the calling test) if the variable is unset or the command fails.
 */
export function makeAdmin(email) {
  const cmd = process.env.ADMIN_GRANT_CMD;
  if (!cmd || !cmd.trim()) {
    throw new Error(
      "ADMIN_GRANT_CMD is not set: it must be a shell command that grants the admin role to the email " +
        'appended to it, e.g. ADMIN_GRANT_CMD="gatehouse admin grant --email" (see tests/conformance/README.md)'
    );
  }
  const full = `${cmd} ${shellQuote(email)}`;
  try {
    execSync(full, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  } catch (e) {
    const out = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim();
    throw new Error(`ADMIN_GRANT_CMD failed (${full}): exit ${e.status ?? e.signal}${out ? `\n${out}` : ""}`);
  }
}

export { CookieJar, parseSetCookie };
