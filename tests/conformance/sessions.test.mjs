// Session listing (`GET /list-sessions`) driven through the official better-auth
// client (better-auth/client 1.7.7) against the server at $GATEHOUSE_URL.
//
// What better-auth 1.7.7 does (observed on the reference server, and read in
// dist/api/routes/session.mjs, `listSessions`):
//  * auth level "fresh" (freshSessionMiddleware): no / invalid session → 401
//    {"message":"Unauthorized","code":"UNAUTHORIZED"}; a session whose createdAt
//    is more than freshAge (1 day) old → 403 SESSION_NOT_FRESH (not tested here:
//    it needs a day-old session);
//  * 200 with a JSON array of every unexpired session of the caller's user, raw
//    tokens included, in no particular order (the reference gives DB order);
//  * the client hands it back as `data: Session[]` with the dates as `Date`s.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AUTH_URL,
  BASE_URL,
  PASSWORD,
  TOKEN_RE,
  getWithCookie,
  newBrowser,
  parseSetCookie,
  splitSigned,
  uniqueEmail,
} from "./helpers.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const SESSION_COOKIE = `${SECURE ? "__Secure-better-auth" : "better-auth"}.session_token`;

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far a server-computed time may be from our own clock's estimate. */
const SLACK_MS = 2 * 60 * 1000;
const ID_RE = /^[A-Za-z0-9]{32}$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UNAUTHORIZED = { message: "Unauthorized", code: "UNAUTHORIZED" };
/** The core session fields every listed session carries (plugins may add more). */
const CORE_FIELDS = ["id", "token", "userId", "expiresAt", "createdAt", "updatedAt", "ipAddress", "userAgent"];
const DATE_FIELDS = ["expiresAt", "createdAt", "updatedAt"];

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

/** Sign a new user up in `browser` (a fresh user: this is its only session). */
async function signUp(browser, fetchOptions) {
  const email = uniqueEmail("sessions");
  const res = await browser.client.signUp.email(
    { name: "Session Lister", email, password: PASSWORD },
    fetchOptions
  );
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { email, token: res.data.token, user: res.data.user };
}

/** Sign an existing user in from `browser`; returns the new session's token. */
async function signIn(browser, email, extra = {}, fetchOptions) {
  const res = await browser.client.signIn.email({ email, password: PASSWORD, ...extra }, fetchOptions);
  assert.equal(res.error, null, JSON.stringify(res.error));
  return res.data.token;
}

/** The browser's current session as get-session reports it. */
async function currentSession(browser) {
  const { data, error } = await browser.client.getSession();
  assert.equal(error, null, JSON.stringify(error));
  assert.ok(data?.session, `browser has a session: ${JSON.stringify(data)}`);
  return data.session;
}

/** authClient.listSessions(), asserting success: returns the array. */
async function listSessions(browser) {
  const res = await browser.client.listSessions();
  assert.equal(res.error, null, `list-sessions failed: ${JSON.stringify(res.error)}`);
  assert.equal(browser.jar.lastResponse.status, 200);
  assert.ok(Array.isArray(res.data), `data is an array, got ${JSON.stringify(res.data)}`);
  return res.data;
}

/** One listed session as the client hands it back (dates already `Date`s). */
function assertListedSession(s, { userId }) {
  assert.equal(typeof s, "object");
  assert.ok(s !== null);
  for (const f of CORE_FIELDS) assert.ok(f in s, `session has ${f}: ${JSON.stringify(s)}`);
  assert.match(s.id, ID_RE, "session.id is a 32-char id");
  assert.match(s.token, TOKEN_RE, "the raw session token is included");
  assert.notEqual(s.id, s.token, "session id and token are distinct");
  assert.equal(s.userId, userId);
  for (const f of DATE_FIELDS) {
    assert.ok(s[f] instanceof Date && !Number.isNaN(s[f].getTime()), `${f} is a Date: ${s[f]}`);
  }
  assert.ok(s.expiresAt > new Date(), "only unexpired sessions are listed");
  // the reference sends "" when it has no value; SQL adapters may send null
  for (const f of ["ipAddress", "userAgent"]) {
    assert.ok(typeof s[f] === "string" || s[f] === null, `${f}: ${JSON.stringify(s[f])}`);
  }
}

/** The listed session equals what get-session says about the same session (core fields). */
function assertSameSession(listed, fromGetSession) {
  for (const f of CORE_FIELDS) {
    const a = listed[f];
    const b = fromGetSession[f];
    if (DATE_FIELDS.includes(f)) assert.equal(a.getTime(), b.getTime(), `${f} matches get-session`);
    else assert.equal(a, b, `${f} matches get-session`);
  }
}

const byToken = (list) => new Map(list.map((s) => [s.token, s]));

describe("list-sessions", () => {
  test("two browsers of one user both see both sessions, with ids and raw tokens", async () => {
    const a = newBrowser();
    const up = await signUp(a, { headers: { "user-agent": "Conformance-Browser-A/1.0" } });
    const b = newBrowser();
    const tokenB = await signIn(b, up.email, {}, { headers: { "user-agent": "Conformance-Browser-B/2.0" } });
    assert.notEqual(tokenB, up.token);

    const sessA = await currentSession(a);
    const sessB = await currentSession(b);
    assert.equal(sessA.token, up.token);
    assert.equal(sessB.token, tokenB);

    for (const [name, browser] of [["A", a], ["B", b]]) {
      const list = await listSessions(browser);
      assert.equal(list.length, 2, `browser ${name} sees exactly the user's 2 sessions: ${JSON.stringify(list)}`);
      const m = byToken(list);
      assert.deepEqual(new Set(m.keys()), new Set([up.token, tokenB]), `browser ${name}: tokens`);
      for (const s of list) assertListedSession(s, { userId: up.user.id });
      assertSameSession(m.get(up.token), sessA);
      assertSameSession(m.get(tokenB), sessB);
      assert.notEqual(m.get(up.token).id, m.get(tokenB).id);
      // each session remembers the User-Agent it was created with
      assert.equal(m.get(up.token).userAgent, "Conformance-Browser-A/1.0");
      assert.equal(m.get(tokenB).userAgent, "Conformance-Browser-B/2.0");
      // a fresh 7-day session each
      assertAbout(m.get(up.token).expiresAt, 7 * DAY_MS, `browser ${name}: A's expiresAt`);
      assertAbout(m.get(tokenB).expiresAt, 7 * DAY_MS, `browser ${name}: B's expiresAt`);
      assertAbout(m.get(tokenB).createdAt, 0, `browser ${name}: B's createdAt`);
    }
    // listing changes no cookies
    assert.equal(b.jar.lastSetCookies.length, 0, `no Set-Cookie: ${b.jar.lastSetCookies.join(" | ")}`);
  });

  test("wire format: 200 application/json array, ISO date strings", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const raw = await getWithCookie("/list-sessions", a.jar.cookieHeader());
    assert.equal(raw.status, 200, raw.text);
    assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
    assert.ok(Array.isArray(raw.json), `body is a JSON array: ${raw.text}`);
    assert.equal(raw.json.length, 1);
    const [s] = raw.json;
    for (const f of CORE_FIELDS) assert.ok(f in s, `session has ${f}: ${raw.text}`);
    assert.equal(s.token, up.token);
    assert.equal(s.userId, up.user.id);
    for (const f of DATE_FIELDS) assert.match(s[f], ISO_RE, `${f} is an ISO-8601 UTC string: ${s[f]}`);
  });

  test("another user's sessions are never listed", async () => {
    const a = newBrowser();
    const upA = await signUp(a);
    const c = newBrowser();
    const upC = await signUp(c);
    const c2 = newBrowser();
    const tokenC2 = await signIn(c2, upC.email);

    const listA = await listSessions(a);
    assert.deepEqual(listA.map((s) => s.token), [upA.token], "A sees only its own session");
    for (const s of listA) assertListedSession(s, { userId: upA.user.id });

    const listC = await listSessions(c);
    assert.deepEqual(new Set(listC.map((s) => s.token)), new Set([upC.token, tokenC2]));
    for (const s of listC) assertListedSession(s, { userId: upC.user.id });
    assert.ok(!listC.some((s) => s.token === upA.token || s.userId === upA.user.id));
  });

  test("after sign-out in browser B, browser A no longer lists B's session", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    const tokenB = await signIn(b, up.email);
    assert.equal((await listSessions(a)).length, 2);

    const out = await b.client.signOut();
    assert.deepEqual(out.data, { success: true });

    const list = await listSessions(a);
    assert.deepEqual(list.map((s) => s.token), [up.token], `B's session ${tokenB} is gone`);
    assertListedSession(list[0], { userId: up.user.id });
  });

  test("a rememberMe:false session is listed too, with its 1-day expiry", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    const tokenB = await signIn(b, up.email, { rememberMe: false });
    for (const browser of [a, b]) {
      const m = byToken(await listSessions(browser));
      assert.equal(m.size, 2);
      assertAbout(m.get(tokenB)?.expiresAt, DAY_MS, "rememberMe:false session expiresAt");
      assertAbout(m.get(up.token)?.expiresAt, 7 * DAY_MS, "remembered session expiresAt");
    }
  });
});

describe("list-sessions without a valid session", () => {
  /**
   * Raw GET /list-sessions; asserts the exact 401 answer. `expires`: the answer
   * also expires the session cookie (a validly signed cookie whose session is
   * gone); otherwise no Set-Cookie at all.
   */
  async function assertUnauthorizedRaw(cookieHeader, { expires = false } = {}) {
    const res = await fetch(`${AUTH_URL}/list-sessions`, {
      headers: { origin: new URL(BASE_URL).origin, ...(cookieHeader ? { cookie: cookieHeader } : {}) },
      redirect: "manual",
    });
    const text = await res.text();
    assert.equal(res.status, 401, text);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(JSON.parse(text), UNAUTHORIZED, `exact body: ${text}`);
    const setCookies = res.headers.getSetCookie().map(parseSetCookie);
    if (expires) {
      const sc = setCookies.find((c) => c.name === SESSION_COOKIE);
      assert.ok(sc, `${SESSION_COOKIE} is expired: ${setCookies.map((c) => c.raw).join(" | ")}`);
      assert.equal(sc.value, "", sc.raw);
      assert.equal(sc.attributes["max-age"], "0", sc.raw);
      assert.equal(sc.attributes.path, "/", sc.raw);
    } else {
      assert.equal(setCookies.length, 0, `no cookie changes: ${setCookies.map((c) => c.raw).join(" | ")}`);
    }
  }

  /** The client's view of the same: data null, error {status 401, code, message}. */
  async function assertUnauthorizedClient(browser) {
    const { data, error } = await browser.client.listSessions();
    assert.equal(data, null);
    assert.ok(error, "an error");
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHORIZED");
    assert.equal(error.message, "Unauthorized");
    assert.equal(browser.jar.lastResponse.status, 401);
  }

  test("no cookie → 401 {message: Unauthorized, code: UNAUTHORIZED}", async () => {
    await assertUnauthorizedClient(newBrowser());
    await assertUnauthorizedRaw(undefined);
  });

  test("a tampered session cookie → the same 401", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const other = newBrowser();
    await signUp(other);
    // A's token with the signature of another session's cookie
    const { signature: otherSig } = splitSigned(other.jar.get(SESSION_COOKIE));
    const tampered = encodeURIComponent(`${up.token}.${otherSig}`);
    await assertUnauthorizedRaw(`${SESSION_COOKIE}=${tampered}`);
    // the bare (unsigned) token is not accepted either
    await assertUnauthorizedRaw(`${SESSION_COOKIE}=${up.token}`);
    a.jar.set(SESSION_COOKIE, tampered);
    await assertUnauthorizedClient(a);
  });

  // Like get-session, the reference expires the cookies (session_token,
  // session_data, dont_remember, all Max-Age=0) when a validly signed cookie
  // names a session that no longer exists.
  test("after sign-out (replaying the old cookie) → the same 401, cookie expired", async () => {
    const a = newBrowser();
    await signUp(a);
    const saved = a.jar.cookieHeader();
    assert.equal((await listSessions(a)).length, 1);
    const out = await a.client.signOut();
    assert.deepEqual(out.data, { success: true });
    await assertUnauthorizedClient(a);
    await assertUnauthorizedRaw(saved, { expires: true });
  });
});
