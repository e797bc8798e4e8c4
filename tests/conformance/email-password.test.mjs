// Email + password flows driven through the official better-auth client
// (better-auth/client 1.7.7) against the server at $GATEHOUSE_URL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AUTH_URL,
  BASE_URL,
  PASSWORD,
  SIGNATURE_RE,
  TOKEN_RE,
  getWithCookie,
  lastCookie,
  newBrowser,
  postJson,
  splitSigned,
  uniqueEmail,
} from "./helpers.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const PREFIX = SECURE ? "__Secure-better-auth" : "better-auth";
const SESSION_COOKIE = `${PREFIX}.session_token`;
const SESSION_DATA_COOKIE = `${PREFIX}.session_data`;
const DONT_REMEMBER_COOKIE = `${PREFIX}.dont_remember`;

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far a server-computed expiry may be from our own clock's estimate. */
const SLACK_MS = 2 * 60 * 1000;

/** Assert `d` is a Date within SLACK_MS of now + offsetMs. */
function assertAbout(d, offsetMs, what) {
  assert.ok(d instanceof Date, `${what} should be a Date, got ${typeof d}: ${d}`);
  assert.ok(!Number.isNaN(d.getTime()), `${what} is an invalid Date`);
  const expected = Date.now() + offsetMs;
  assert.ok(
    Math.abs(d.getTime() - expected) < SLACK_MS,
    `${what} = ${d.toISOString()}, expected about ${new Date(expected).toISOString()}`
  );
}

/** Common checks on a user object as the client hands it back. */
function assertUser(user, { email, name }) {
  assert.equal(typeof user, "object");
  assert.ok(user !== null);
  assert.match(user.id, /^[A-Za-z0-9]{32}$/, "user.id is a 32-char id");
  assert.equal(user.email, email.toLowerCase());
  assert.equal(user.name, name);
  assert.equal(user.emailVerified, false);
  assert.ok(user.createdAt instanceof Date, "user.createdAt is an ISO date string (-> Date)");
  assert.ok(user.updatedAt instanceof Date, "user.updatedAt is an ISO date string (-> Date)");
  assertAbout(user.createdAt, 0, "user.createdAt");
  // nullable: SQL adapters send null, the memory adapter omits the key
  assert.ok(user.image === null || user.image === undefined, `user.image: ${user.image}`);
  assert.equal("password" in user, false, "no password material on the wire");
}

/** Check a Set-Cookie for session_token that carries `token` and persists `maxAge` (or none). */
function assertSessionCookie(sc, token, { maxAge }) {
  assert.ok(sc, `a ${SESSION_COOKIE} Set-Cookie header was sent`);
  assert.equal(sc.name, SESSION_COOKIE);
  const { value, signature } = splitSigned(sc.value);
  assert.equal(value, token, "cookie value is <token>.<signature>");
  assert.match(signature, SIGNATURE_RE, "signature is 44 chars of standard base64 ending in '='");
  assert.equal(sc.value, encodeURIComponent(`${token}.${signature}`), "value is percent-encoded");
  if (maxAge === undefined) {
    assert.equal(sc.attributes["max-age"], undefined, `no Max-Age: ${sc.raw}`);
  } else {
    assert.equal(sc.attributes["max-age"], String(maxAge), sc.raw);
  }
  assert.equal(sc.attributes.expires, undefined, "better-auth never emits Expires");
  assert.equal(sc.attributes.path, "/", sc.raw);
  assert.equal(sc.attributes.httponly, true, sc.raw);
  assert.equal(sc.attributes.samesite, "Lax", sc.raw);
  assert.equal(sc.attributes.secure === true, SECURE, `Secure iff https: ${sc.raw}`);
  assert.equal(sc.attributes.domain, undefined, sc.raw);
}

/** Check a deletion Set-Cookie (`name=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`). */
function assertDeletion(jar, name) {
  const sc = lastCookie(jar, name);
  assert.ok(sc, `${name} was expired in the response (Set-Cookie list: ${jar.lastSetCookies.join(" | ")})`);
  assert.equal(sc.value, "", sc.raw);
  assert.equal(sc.attributes["max-age"], "0", sc.raw);
  assert.equal(sc.attributes.path, "/", sc.raw);
  assert.equal(jar.has(name), false, `${name} gone from the jar`);
}

async function signUp(browser, overrides = {}) {
  const email = overrides.email ?? uniqueEmail();
  const name = overrides.name ?? "Conformance User";
  const password = overrides.password ?? PASSWORD;
  const res = await browser.client.signUp.email({ name, email, password, ...overrides.extra });
  return { ...res, email, name, password };
}

describe("sign-up/email", () => {
  test("creates the user, returns a token and sets a signed session cookie", async () => {
    const b = newBrowser();
    const email = uniqueEmail("Mixed.Case").replace("example.com", "Example.COM");
    const { data, error } = await signUp(b, { email, name: "Alice Example" });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(b.jar.lastResponse.status, 200);

    assertUser(data.user, { email, name: "Alice Example" });
    assert.equal(data.user.email, email.toLowerCase(), "email is lower-cased");
    assert.match(data.token, TOKEN_RE, "token is 32 chars [A-Za-z0-9]");

    const sc = lastCookie(b.jar, SESSION_COOKIE);
    assertSessionCookie(sc, data.token, { maxAge: 604800 });
    assert.equal(lastCookie(b.jar, DONT_REMEMBER_COOKIE), undefined, "no dont_remember by default");
    assert.ok(b.jar.has(SESSION_COOKIE), "jar now holds the session cookie");
  });

  test("get-session after sign-up returns {session, user} for that token", async () => {
    const b = newBrowser();
    const up = await signUp(b);
    assert.equal(up.error, null, JSON.stringify(up.error));

    const { data, error } = await b.client.getSession();
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(b.jar.lastResponse.status, 200);
    assert.equal(b.jar.lastResponse.headers.get("cache-control"), "no-store");
    assert.ok(data && data.session && data.user, `got ${JSON.stringify(data)}`);

    const { session, user } = data;
    assert.equal(session.token, up.data.token);
    assert.equal(session.userId, up.data.user.id);
    assert.equal(user.id, up.data.user.id);
    assert.match(session.id, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(session.id, session.token, "session id and token are distinct");
    assertAbout(session.expiresAt, 7 * DAY_MS, "session.expiresAt");
    assert.ok(session.createdAt instanceof Date);
    assert.ok(session.updatedAt instanceof Date);
    assertUser(user, { email: up.email, name: up.name });
    assert.equal(user.createdAt.getTime(), up.data.user.createdAt.getTime());
  });

  test("duplicate email (differing only in case) → 422 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", async () => {
    const email = uniqueEmail("dup");
    const first = await signUp(newBrowser(), { email });
    assert.equal(first.error, null, JSON.stringify(first.error));

    const b = newBrowser();
    const { data, error } = await signUp(b, { email: email.toUpperCase() });
    assert.equal(data, null);
    assert.equal(error.status, 422);
    assert.equal(error.code, "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL");
    assert.equal(error.message, "User already exists. Use another email.");
    assert.equal(b.jar.lastSetCookies.length, 0, "no cookies on a failed sign-up");
    assert.equal(b.jar.names().length, 0);
  });
});

describe("get-session", () => {
  test("without a session: 200 with a null body, no error", async () => {
    const b = newBrowser();
    const { data, error } = await b.client.getSession();
    assert.equal(error, null);
    assert.equal(data, null);
    assert.equal(b.jar.lastResponse.status, 200);
    assert.equal(b.jar.lastSetCookies.length, 0, "no cookie changes");
  });

  test("a tampered session cookie is treated as no session", async () => {
    const b = newBrowser();
    const up = await signUp(b);
    assert.equal(up.error, null, JSON.stringify(up.error));
    const { signature } = splitSigned(b.jar.get(SESSION_COOKIE));
    // same token, signature of something else
    const other = newBrowser();
    await signUp(other);
    const { signature: otherSig } = splitSigned(other.jar.get(SESSION_COOKIE));
    assert.notEqual(signature, otherSig);
    b.jar.set(SESSION_COOKIE, encodeURIComponent(`${up.data.token}.${otherSig}`));
    const { data, error } = await b.client.getSession();
    assert.equal(error, null);
    assert.equal(data, null);
    assert.equal(b.jar.lastResponse.status, 200);
  });
});

describe("sign-in/email", () => {
  test("correct password: redirect false, a new session, usable from a fresh browser", async () => {
    const up = await signUp(newBrowser());
    assert.equal(up.error, null, JSON.stringify(up.error));

    const b = newBrowser(); // a fresh browser with an empty jar
    const { data, error } = await b.client.signIn.email({
      email: up.email.toUpperCase(), // sign-in lower-cases too
      password: PASSWORD,
    });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(b.jar.lastResponse.status, 200);
    assert.equal(data.redirect, false);
    assert.equal("url" in data, false, "no url without callbackURL");
    assert.match(data.token, TOKEN_RE);
    assert.notEqual(data.token, up.data.token, "a new session");
    assert.equal(data.user.id, up.data.user.id);
    assertUser(data.user, { email: up.email, name: up.name });
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), data.token, { maxAge: 604800 });

    const s = await b.client.getSession();
    assert.equal(s.error, null);
    assert.equal(s.data.session.token, data.token);
    assert.equal(s.data.user.id, up.data.user.id);
    assertAbout(s.data.session.expiresAt, 7 * DAY_MS, "session.expiresAt");
  });

  test("wrong password → 401 INVALID_EMAIL_OR_PASSWORD", async () => {
    const up = await signUp(newBrowser());
    assert.equal(up.error, null, JSON.stringify(up.error));
    const b = newBrowser();
    const { data, error } = await b.client.signIn.email({
      email: up.email,
      password: `${PASSWORD}-wrong`,
    });
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, "INVALID_EMAIL_OR_PASSWORD");
    assert.equal(error.message, "Invalid email or password");
    assert.equal(b.jar.names().length, 0, "no cookies set");
  });

  test("unknown email → the same 401 INVALID_EMAIL_OR_PASSWORD", async () => {
    const b = newBrowser();
    const { data, error } = await b.client.signIn.email({
      email: uniqueEmail("nobody"),
      password: PASSWORD,
    });
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, "INVALID_EMAIL_OR_PASSWORD");
    assert.equal(error.message, "Invalid email or password");
    assert.equal(b.jar.names().length, 0, "no cookies set");
  });
});

describe("sign-out", () => {
  test("clears the cookies and kills the session server-side", async () => {
    const b = newBrowser();
    const up = await signUp(b);
    assert.equal(up.error, null, JSON.stringify(up.error));
    const savedCookieHeader = b.jar.cookieHeader();
    assert.match(savedCookieHeader, new RegExp(`${SESSION_COOKIE.replace(/[.]/g, "\\.")}=`));
    const before = await getWithCookie("/get-session", savedCookieHeader);
    assert.equal(before.json?.session?.token, up.data.token, "replayed cookie works before sign-out");

    const { data, error } = await b.client.signOut();
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(b.jar.lastResponse.status, 200);
    assert.deepEqual(data, { success: true });
    assertDeletion(b.jar, SESSION_COOKIE);
    assertDeletion(b.jar, DONT_REMEMBER_COOKIE);
    // session_data is expired too (the reference sends it even with the cookie cache off)
    const sd = lastCookie(b.jar, SESSION_DATA_COOKIE);
    if (sd) assert.equal(sd.attributes["max-age"], "0");
    assert.equal(b.jar.names().length, 0, `jar empty, has: ${b.jar.names()}`);

    const after = await b.client.getSession();
    assert.equal(after.error, null);
    assert.equal(after.data, null);

    // replaying the saved cookie (e.g. a copy stolen before sign-out) no longer works
    const replay = await getWithCookie("/get-session", savedCookieHeader);
    assert.equal(replay.status, 200);
    assert.equal(replay.json, null, `replayed cookie still valid: ${replay.text}`);
  });

  test("only the signed-out session dies; the user's other sessions live on", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    assert.equal(up.error, null, JSON.stringify(up.error));
    const b = newBrowser();
    const inB = await b.client.signIn.email({ email: up.email, password: PASSWORD });
    assert.equal(inB.error, null, JSON.stringify(inB.error));

    const out = await a.client.signOut();
    assert.deepEqual(out.data, { success: true });
    assert.equal((await a.client.getSession()).data, null);
    const still = await b.client.getSession();
    assert.equal(still.data?.session?.token, inB.data.token);
  });

  test("without a session still answers 200 {success:true}", async () => {
    const b = newBrowser();
    const { data, error } = await b.client.signOut();
    assert.equal(error, null, JSON.stringify(error));
    assert.deepEqual(data, { success: true });
  });
});

describe("rememberMe: false", () => {
  test("session-only cookie, dont_remember cookie, 1-day session; sign-out clears both", async () => {
    const up = await signUp(newBrowser());
    assert.equal(up.error, null, JSON.stringify(up.error));

    const b = newBrowser();
    const { data, error } = await b.client.signIn.email({
      email: up.email,
      password: PASSWORD,
      rememberMe: false,
    });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data.redirect, false);
    assert.match(data.token, TOKEN_RE);

    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), data.token, { maxAge: undefined });

    const dr = lastCookie(b.jar, DONT_REMEMBER_COOKIE);
    assert.ok(dr, `dont_remember set (got ${b.jar.lastSetCookies.join(" | ")})`);
    const { value, signature } = splitSigned(dr.value);
    assert.equal(value, "true");
    assert.match(signature, SIGNATURE_RE);
    assert.equal(dr.attributes["max-age"], undefined, `no Max-Age: ${dr.raw}`);
    assert.equal(dr.attributes.path, "/");
    assert.equal(dr.attributes.httponly, true);
    assert.equal(dr.attributes.samesite, "Lax");

    // dont_remember is deterministic: HMAC("true") under the server secret
    const b2 = newBrowser();
    await b2.client.signIn.email({ email: up.email, password: PASSWORD, rememberMe: false });
    assert.equal(lastCookie(b2.jar, DONT_REMEMBER_COOKIE)?.value, dr.value);

    const s = await b.client.getSession();
    assert.equal(s.error, null);
    assert.equal(s.data.session.token, data.token);
    assertAbout(s.data.session.expiresAt, DAY_MS, "session.expiresAt (rememberMe false)");
    assert.equal(
      lastCookie(b.jar, SESSION_COOKIE),
      undefined,
      "get-session does not re-issue a dont-remember session's cookie"
    );

    const out = await b.client.signOut();
    assert.deepEqual(out.data, { success: true });
    assertDeletion(b.jar, SESSION_COOKIE);
    assertDeletion(b.jar, DONT_REMEMBER_COOKIE);
    assert.equal((await b.client.getSession()).data, null);
  });

  test("on sign-up too", async () => {
    const b = newBrowser();
    const { data, error } = await signUp(b, { extra: { rememberMe: false } });
    assert.equal(error, null, JSON.stringify(error));
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), data.token, { maxAge: undefined });
    assert.equal(splitSigned(lastCookie(b.jar, DONT_REMEMBER_COOKIE)?.value ?? "").value, "true");
    const s = await b.client.getSession();
    assertAbout(s.data.session.expiresAt, DAY_MS, "session.expiresAt (rememberMe false)");
  });
});

describe("bad input", () => {
  test("sign-up with a short password → 400 PASSWORD_TOO_SHORT", async () => {
    const b = newBrowser();
    const { data, error } = await signUp(b, { password: "short7!" });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "PASSWORD_TOO_SHORT");
    assert.equal(error.message, "Password too short");
    assert.equal(b.jar.names().length, 0);
  });

  test("sign-up with a too long password → 400 PASSWORD_TOO_LONG", async () => {
    const b = newBrowser();
    const { data, error } = await signUp(b, { password: "x".repeat(129) });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "PASSWORD_TOO_LONG");
    assert.equal(error.message, "Password too long");
  });

  // The reference (1.7.7) validates sign-up's email with its body schema
  // (`email: z.email()`), so a malformed address is a schema failure, not the
  // handler's INVALID_EMAIL (which is unreachable for sign-up here).
  test("sign-up with an invalid email → 400 VALIDATION_ERROR on body.email", async () => {
    const b = newBrowser();
    const { data, error } = await signUp(b, { email: "not-an-email" });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.equal(error.message, "[body.email] Invalid email address");
    assert.equal(b.jar.names().length, 0);
  });

  test("sign-up with an empty password → 400 VALIDATION_ERROR on body.password", async () => {
    const b = newBrowser();
    const { data, error } = await signUp(b, { password: "" });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.match(error.message, /^\[body\.password\] /);
  });

  // sign-in's schema takes any string as email; the handler answers INVALID_EMAIL
  test("sign-in with an invalid email → 400 INVALID_EMAIL", async () => {
    const b = newBrowser();
    const { data, error } = await b.client.signIn.email({ email: "nope", password: PASSWORD });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "INVALID_EMAIL");
    assert.equal(error.message, "Invalid email");
  });

  test("sign-in with an empty password → 401 INVALID_EMAIL_OR_PASSWORD (not a validation error)", async () => {
    const up = await signUp(newBrowser());
    assert.equal(up.error, null, JSON.stringify(up.error));
    const b = newBrowser();
    const { data, error } = await b.client.signIn.email({ email: up.email, password: "" });
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, "INVALID_EMAIL_OR_PASSWORD");
  });

  test("sign-in without a password → 400 VALIDATION_ERROR", async () => {
    const b = newBrowser();
    // through the client (plain JS: nothing stops us omitting the field)
    const { data, error } = await b.client.signIn.email({ email: uniqueEmail() });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.match(error.message, /^\[body\.password\] /);

    // and as a raw request, to pin the exact body shape
    const raw = await postJson(b.jar, "/sign-in/email", { email: uniqueEmail() });
    assert.equal(raw.status, 400);
    assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(Object.keys(raw.json).sort(), ["code", "message"]);
    assert.equal(raw.json.code, "VALIDATION_ERROR");
    assert.equal(raw.json.message, "[body.password] Invalid input: expected string, received undefined");
  });

  test("sign-up without a name → 400 VALIDATION_ERROR naming body.name", async () => {
    const b = newBrowser();
    const raw = await postJson(b.jar, "/sign-up/email", { email: uniqueEmail(), password: PASSWORD });
    assert.equal(raw.status, 400);
    assert.equal(raw.json.code, "VALIDATION_ERROR");
    assert.match(raw.json.message, /^\[body\.name\] /);
  });
});

describe("transport", () => {
  test("the auth API answers under /api/auth and unknown routes 404", async () => {
    const res = await fetch(`${AUTH_URL}/definitely-not-a-route`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});

// The reference runs the username, admin and organization plugins, so their
// columns ride along on every user and session object (the organization plugin's
// session fields are absent or null until a session has an active organization).
describe("plugin fields on the wire (username, admin, organization)", () => {
  test("user and session carry the plugin columns with their defaults", async () => {
    const b = newBrowser();
    const up = await signUp(b);
    assert.equal(up.error, null, JSON.stringify(up.error));
    const nullish = (v) => v === null || v === undefined;
    for (const user of [up.data.user, (await b.client.getSession()).data.user]) {
      assert.equal(user.role, "user", "admin plugin: role defaults to user");
      assert.equal(user.banned, false, "admin plugin: banned defaults to false");
      assert.ok(nullish(user.banReason), `banReason: ${user.banReason}`);
      assert.ok(nullish(user.banExpires), `banExpires: ${user.banExpires}`);
      assert.ok(nullish(user.username), `username: ${user.username}`);
      assert.ok(nullish(user.displayUsername), `displayUsername: ${user.displayUsername}`);
    }
    const { session } = (await b.client.getSession()).data;
    assert.ok(nullish(session.activeOrganizationId));
    assert.ok(nullish(session.activeTeamId));
    assert.ok(nullish(session.impersonatedBy));
    assert.equal(typeof session.ipAddress, "string");
    assert.equal(typeof session.userAgent, "string");
  });
});

describe("origin check", () => {
  test("a cookie-bearing POST without Origin → 403 MISSING_OR_NULL_ORIGIN", async () => {
    const b = newBrowser();
    const up = await signUp(b);
    assert.equal(up.error, null, JSON.stringify(up.error));
    const noOrigin = b.jar.clone();
    noOrigin.origin = null;
    const res = await postJson(noOrigin, "/sign-out", {});
    assert.equal(res.status, 403);
    assert.equal(res.json.code, "MISSING_OR_NULL_ORIGIN");
    assert.equal(res.json.message, "Missing or null Origin");
    // nothing happened: the session is alive
    assert.equal((await b.client.getSession()).data?.session?.token, up.data.token);
  });

  test("a cookie-bearing POST from an untrusted Origin → 403 INVALID_ORIGIN", async () => {
    const b = newBrowser();
    const up = await signUp(b);
    assert.equal(up.error, null, JSON.stringify(up.error));
    const evil = b.jar.clone();
    evil.origin = "http://evil.example";
    const res = await postJson(evil, "/sign-out", {});
    assert.equal(res.status, 403);
    assert.equal(res.json.code, "INVALID_ORIGIN");
    assert.equal(res.json.message, "Invalid origin");
    assert.equal((await b.client.getSession()).data?.session?.token, up.data.token);
  });

  test("a cookie-less sign-in from an untrusted Origin → 403 INVALID_ORIGIN", async () => {
    const up = await signUp(newBrowser());
    assert.equal(up.error, null, JSON.stringify(up.error));
    const { client, jar } = newBrowser({ origin: "http://evil.example" });
    const { data, error } = await client.signIn.email({ email: up.email, password: PASSWORD });
    assert.equal(data, null);
    assert.equal(error.status, 403);
    assert.equal(error.code, "INVALID_ORIGIN");
    assert.equal(jar.names().length, 0);
  });
});
