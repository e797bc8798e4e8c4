// Session revocation (`POST /revoke-session`, `POST /revoke-sessions`,
// `POST /revoke-other-sessions`) and the `get-session` query flags, driven
// through the official better-auth client (better-auth/client 1.7.7) against
// the server at $GATEHOUSE_URL.
//
// What better-auth 1.7.7 answers (observed on the reference server; see also
// dist/api/routes/session.mjs):
//  * all three routes: auth level "sensitive" (DB-authoritative session). No /
//    tampered session → 401 {"message":"Unauthorized","code":"UNAUTHORIZED"}, no
//    Set-Cookie; a validly signed cookie whose session is gone → the same 401 plus
//    session_token, session_data and dont_remember expired (`Max-Age=0`).
//    Cookie-bearing POSTs go through the origin check (untrusted Origin → 403
//    INVALID_ORIGIN, none → 403 MISSING_OR_NULL_ORIGIN), nothing is revoked.
//  * POST /revoke-session {token}: 200 {"status":true} ALWAYS: the session is
//    deleted only when it belongs to the caller; another user's token, an unknown
//    token or "" are silently ignored. It never sets a cookie, not even when the
//    token is the caller's own current session (the 1.7.24 cookie clearing the
//    protocol notes mention is not in 1.7.7): the browser keeps a dead cookie,
//    and its next get-session answers 200 null and expires the cookies.
//    Gatehouse answers as 1.7.24 does and expires the session cookies at once;
//    the tests accept either (the session is dead both ways).
//    Body schema {token: string}; schema validation runs BEFORE the session
//    check, so a signed-out caller with a bad body gets the 400 too:
//      {}            → 400 VALIDATION_ERROR "[body.token] Invalid input: expected string, received undefined"
//      {token: 5}    → "... received number", {token: null} → "... received null"
//      no body       → "[body] Invalid input: expected object, received undefined"
//      []            → "[body] Invalid input: expected object, received array"
//  * POST /revoke-sessions: deletes every session of the user, the current one
//    included; 200 {"status":true}, no Set-Cookie (the dead cookie is only
//    expired by the next request that reads it; 1.7.24 and Gatehouse expire it
//    at once, which the tests accept too).
//  * POST /revoke-other-sessions: deletes every other session of the user;
//    200 {"status":true}, no Set-Cookie; the current session lives on unchanged.
//  * GET /get-session?disableRefresh=true / ?disableCookieCache=true (any
//    non-empty value counts, even "false"): 200 {session, user} for the cookie's
//    session, cache-control: no-store, pragma: no-cache, no Set-Cookie; signed
//    out → 200 null; a dead session → 200 null with the cookies expired.
//    (That disableRefresh really suppresses the sliding refresh needs a day-old
//    session and is not tested here.)
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AUTH_URL,
  BASE_URL,
  PASSWORD,
  TOKEN_RE,
  getWithCookie,
  lastCookie,
  newBrowser,
  parseSetCookie,
  postJson,
  splitSigned,
  uniqueEmail,
} from "./helpers.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const PREFIX = SECURE ? "__Secure-better-auth" : "better-auth";
const SESSION_COOKIE = `${PREFIX}.session_token`;
const SESSION_DATA_COOKIE = `${PREFIX}.session_data`;
const DONT_REMEMBER_COOKIE = `${PREFIX}.dont_remember`;
const UNAUTHORIZED = { message: "Unauthorized", code: "UNAUTHORIZED" };
const OK = { status: true };

async function signUp(browser) {
  const email = uniqueEmail("revoke");
  const res = await browser.client.signUp.email({ name: "Revoker", email, password: PASSWORD });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { email, token: res.data.token, user: res.data.user };
}

async function signIn(browser, email) {
  const res = await browser.client.signIn.email({ email, password: PASSWORD });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return res.data.token;
}

/** The token of the browser's live session (asserting there is one). */
async function sessionToken(browser) {
  const { data, error } = await browser.client.getSession();
  assert.equal(error, null, JSON.stringify(error));
  assert.ok(data?.session, `browser has a live session: ${JSON.stringify(data)}`);
  return data.session.token;
}

/** The browser's session is dead: get-session → 200 null, and the cookies get expired. */
async function assertSignedOut(browser, what) {
  const { data, error } = await browser.client.getSession();
  assert.equal(error, null, JSON.stringify(error));
  assert.equal(browser.jar.lastResponse.status, 200);
  assert.equal(data, null, `${what}: session should be gone, got ${JSON.stringify(data)}`);
  assertExpired(browser.jar.lastSetCookies, what);
  assert.equal(browser.jar.has(SESSION_COOKIE), false, `${what}: the jar dropped the dead cookie`);
}

/** session_token, session_data and dont_remember expired (value "", Max-Age=0, Path=/). */
function assertExpired(rawSetCookies, what) {
  const parsed = rawSetCookies.map(parseSetCookie);
  for (const name of [SESSION_COOKIE, SESSION_DATA_COOKIE, DONT_REMEMBER_COOKIE]) {
    const sc = parsed.find((c) => c.name === name);
    assert.ok(sc, `${what}: ${name} is expired (Set-Cookie: ${rawSetCookies.join(" | ")})`);
    assert.equal(sc.value, "", sc.raw);
    assert.equal(sc.attributes["max-age"], "0", sc.raw);
    assert.equal(sc.attributes.path, "/", sc.raw);
  }
}

/** The tokens list-sessions shows to `browser`, as a Set. */
async function listedTokens(browser) {
  const { data, error } = await browser.client.listSessions();
  assert.equal(error, null, JSON.stringify(error));
  return new Set(data.map((s) => s.token));
}

/** A revoke route answered 200 {"status":true} (application/json) and set no cookie. */
function assertOkNoCookies(browser, res) {
  assert.equal(res.error, null, JSON.stringify(res.error));
  assert.equal(browser.jar.lastResponse.status, 200);
  assert.match(browser.jar.lastResponse.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(res.data, OK);
  assert.deepEqual(browser.jar.lastSetCookies, [], "no Set-Cookie at all");
}

/**
 * The caller's own session ended: 200 {"status":true}, and either no Set-Cookie
 * (1.7.7) or the session cookies expired at once (1.7.24, Gatehouse).
 */
function assertOkOwnSessionEnded(browser, res, what) {
  assert.equal(res.error, null, JSON.stringify(res.error));
  assert.equal(browser.jar.lastResponse.status, 200);
  assert.deepEqual(res.data, OK);
  const set = browser.jar.lastSetCookies;
  if (set.length > 0) assertExpired(set, what);
}

/** Signed out whether the dead cookie was expired already or is expired now. */
async function assertSignedOutEither(browser, what) {
  if (browser.jar.has(SESSION_COOKIE)) return assertSignedOut(browser, what);
  const { data, error } = await browser.client.getSession();
  assert.equal(error, null, JSON.stringify(error));
  assert.equal(data, null, `${what}: session should be gone`);
}

/** Raw POST without any cookie (and the site's Origin). */
async function postAnonymous(path, body, { rawBody } = {}) {
  const res = await fetch(`${AUTH_URL}${path}`, {
    method: "POST",
    headers: { origin: new URL(BASE_URL).origin, "content-type": "application/json" },
    body: rawBody !== undefined ? rawBody : body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

describe("POST /revoke-session", () => {
  test("revoking another session of the same user: {status:true}, that session is gone", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    const tokenB = await signIn(b, up.email);
    assert.deepEqual(await listedTokens(a), new Set([up.token, tokenB]));

    const res = await a.client.revokeSession({ token: tokenB });
    assertOkNoCookies(a, res);

    await assertSignedOut(b, "browser B after A revoked its token");
    assert.deepEqual(await listedTokens(a), new Set([up.token]), "only A's session is left");
    assert.equal(await sessionToken(a), up.token, "A's own session is untouched");
  });

  test("another user's token: still 200 {status:true}, but that session survives", async () => {
    const a = newBrowser();
    await signUp(a);
    const victim = newBrowser();
    const upV = await signUp(victim);

    const res = await a.client.revokeSession({ token: upV.token });
    assertOkNoCookies(a, res);

    assert.equal(await sessionToken(victim), upV.token, "the other user's session is alive");
    assert.deepEqual(await listedTokens(victim), new Set([upV.token]));
  });

  test("an unknown token or an empty string: 200 {status:true}, nothing changes", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    for (const token of ["no-such-session-token", ""]) {
      const res = await postJson(a.jar, "/revoke-session", { token });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, OK);
      assert.equal(res.headers.getSetCookie().length, 0);
    }
    assert.deepEqual(await listedTokens(a), new Set([up.token]));
  });

  // 1.7.7 does not clear the cookies here (1.7.24 does): the dead cookie is
  // only expired by the next request that reads it.
  test("revoking the caller's current token: 200 {status:true}; the session is dead", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    const tokenB = await signIn(b, up.email);
    const saved = a.jar.cookieHeader();

    const res = await a.client.revokeSession({ token: up.token });
    assertOkOwnSessionEnded(a, res, "revoking the current token");

    // the browser is signed out (its cookie expired now, or by the next read)
    await assertSignedOutEither(a, "browser A after revoking its own token");
    const replay = await getWithCookie("/get-session", saved);
    assert.equal(replay.status, 200);
    assert.equal(replay.json, null, `the revoked cookie no longer works: ${replay.text}`);
    // the user's other session is untouched
    assert.equal(await sessionToken(b), tokenB);
    assert.deepEqual(await listedTokens(b), new Set([tokenB]));
  });

  test("missing or wrong-typed token → 400 VALIDATION_ERROR (exact messages)", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const cases = [
      [{}, "[body.token] Invalid input: expected string, received undefined"],
      [{ token: 5 }, "[body.token] Invalid input: expected string, received number"],
      [{ token: null }, "[body.token] Invalid input: expected string, received null"],
      [[], "[body] Invalid input: expected object, received array"],
    ];
    for (const [body, message] of cases) {
      const res = await postJson(a.jar, "/revoke-session", body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(res.json, { message, code: "VALIDATION_ERROR" }, `body ${JSON.stringify(body)}`);
      assert.equal(res.headers.getSetCookie().length, 0);
    }
    // a POST with no body at all
    const none = await a.jar.fetch(`${AUTH_URL}/revoke-session`, { method: "POST" });
    assert.equal(none.status, 400);
    assert.deepEqual(await none.json(), {
      message: "[body] Invalid input: expected object, received undefined",
      code: "VALIDATION_ERROR",
    });
    // the client's error for a wrong-typed token (with no argument keys at all the
    // client would send a GET, which is a 404: it only knows POST from the body)
    const viaClient = await a.client.revokeSession({ token: 42 });
    assert.equal(viaClient.data, null);
    assert.equal(viaClient.error.status, 400);
    assert.equal(viaClient.error.code, "VALIDATION_ERROR");
    assert.equal(viaClient.error.message, "[body.token] Invalid input: expected string, received number");
    assert.deepEqual(await listedTokens(a), new Set([up.token]), "nothing was revoked");
  });

  test("validation comes before the session check: signed out with a bad body → the 400", async () => {
    const res = await postAnonymous("/revoke-session", {});
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.json, {
      message: "[body.token] Invalid input: expected string, received undefined",
      code: "VALIDATION_ERROR",
    });
  });
});

describe("POST /revoke-sessions", () => {
  test("revokes every session of the user, the current one included", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    await signIn(b, up.email);
    const c = newBrowser();
    await signIn(c, up.email);
    const stranger = newBrowser();
    const upS = await signUp(stranger);
    const saved = a.jar.cookieHeader();

    const res = await a.client.revokeSessions();
    assertOkOwnSessionEnded(a, res, "revoke-sessions");

    await assertSignedOutEither(a, "browser A (the caller)");
    await assertSignedOut(b, "browser B");
    await assertSignedOut(c, "browser C");
    const replay = await getWithCookie("/get-session", saved);
    assert.equal(replay.json, null, "the caller's old cookie is dead");

    // a fresh sign-in works and is the user's only session
    const d = newBrowser();
    const tokenD = await signIn(d, up.email);
    assert.deepEqual(await listedTokens(d), new Set([tokenD]));
    // other users are not affected
    assert.equal(await sessionToken(stranger), upS.token);
  });

  test("works with an empty body or no body at all", async () => {
    const a = newBrowser();
    await signUp(a);
    const res = await a.jar.fetch(`${AUTH_URL}/revoke-sessions`, { method: "POST" });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), OK);
    await assertSignedOutEither(a, "after revoke-sessions without a body");
  });
});

describe("POST /revoke-other-sessions", () => {
  test("revokes the user's other sessions; the current one survives unchanged", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    await signIn(b, up.email);
    const c = newBrowser();
    await signIn(c, up.email);
    const stranger = newBrowser();
    const upS = await signUp(stranger);
    const strangerB = newBrowser();
    const tokenSB = await signIn(strangerB, upS.email);
    assert.equal((await listedTokens(a)).size, 3);

    const res = await a.client.revokeOtherSessions();
    assertOkNoCookies(a, res);

    assert.equal(await sessionToken(a), up.token, "the caller keeps its session and token");
    assert.deepEqual(await listedTokens(a), new Set([up.token]));
    await assertSignedOut(b, "browser B");
    await assertSignedOut(c, "browser C");
    assert.deepEqual(await listedTokens(stranger), new Set([upS.token, tokenSB]), "other users untouched");
  });

  test("with no other session: still 200 {status:true}", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const res = await a.client.revokeOtherSessions();
    assertOkNoCookies(a, res);
    assert.equal(await sessionToken(a), up.token);
  });
});

describe("revoke routes without a valid session", () => {
  const routes = [
    ["/revoke-session", { token: "x".repeat(32) }, (c) => c.revokeSession({ token: "x".repeat(32) })],
    ["/revoke-sessions", {}, (c) => c.revokeSessions()],
    ["/revoke-other-sessions", {}, (c) => c.revokeOtherSessions()],
  ];

  test("signed out → 401 {message: Unauthorized, code: UNAUTHORIZED}, no Set-Cookie", async () => {
    for (const [path, body, call] of routes) {
      const raw = await postAnonymous(path, body);
      assert.equal(raw.status, 401, `${path}: ${raw.text}`);
      assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(raw.json, UNAUTHORIZED, `${path}: exact body`);
      assert.equal(raw.headers.getSetCookie().length, 0, path);

      const b = newBrowser();
      const { data, error } = await call(b.client);
      assert.equal(data, null, path);
      assert.equal(error?.status, 401, path);
      assert.equal(error.code, "UNAUTHORIZED", path);
      assert.equal(error.message, "Unauthorized", path);
    }
  });

  test("a tampered cookie → the same 401; the real session survives", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const other = newBrowser();
    await signUp(other);
    const { signature: otherSig } = splitSigned(other.jar.get(SESSION_COOKIE));
    const forged = newBrowser();
    forged.jar.set(SESSION_COOKIE, encodeURIComponent(`${up.token}.${otherSig}`));
    for (const [path, body] of routes) {
      const res = await postJson(forged.jar, path, body);
      assert.equal(res.status, 401, `${path}: ${res.text}`);
      assert.deepEqual(res.json, UNAUTHORIZED);
    }
    assert.equal(await sessionToken(a), up.token);
  });

  test("a validly signed cookie of a revoked session → 401 and the cookies are expired", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    await signIn(b, up.email);
    const deadCookie = b.jar.cookieHeader();
    assertOkNoCookies(a, await a.client.revokeOtherSessions());
    for (const [path, body] of routes) {
      const res = await fetch(`${AUTH_URL}${path}`, {
        method: "POST",
        headers: { origin: new URL(BASE_URL).origin, "content-type": "application/json", cookie: deadCookie },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assert.equal(res.status, 401, `${path}: ${text}`);
      assert.deepEqual(JSON.parse(text), UNAUTHORIZED);
      assertExpired(res.headers.getSetCookie(), path);
    }
    assert.equal(await sessionToken(a), up.token);
  });

  test("cookie-bearing POSTs from an untrusted or missing Origin → 403, nothing revoked", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    const tokenB = await signIn(b, up.email);
    const evil = a.jar.clone();
    evil.origin = "http://evil.example";
    const noOrigin = a.jar.clone();
    noOrigin.origin = null;
    for (const [path, body] of [["/revoke-session", { token: tokenB }], ["/revoke-sessions", {}], ["/revoke-other-sessions", {}]]) {
      const e = await postJson(evil, path, body);
      assert.equal(e.status, 403, `${path}: ${e.text}`);
      assert.deepEqual(e.json, { message: "Invalid origin", code: "INVALID_ORIGIN" });
      const n = await postJson(noOrigin, path, body);
      assert.equal(n.status, 403, `${path}: ${n.text}`);
      assert.deepEqual(n.json, { message: "Missing or null Origin", code: "MISSING_OR_NULL_ORIGIN" });
    }
    assert.deepEqual(await listedTokens(a), new Set([up.token, tokenB]), "both sessions alive");
  });
});

describe("get-session query flags", () => {
  /** Raw GET /get-session?<query> with the browser's cookies; asserts the common headers. */
  async function rawGetSession(browser, query) {
    const res = await getWithCookie(`/get-session?${query}`, browser.jar.cookieHeader());
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("pragma"), "no-cache");
    return res;
  }

  test("disableRefresh / disableCookieCache: the session, no Set-Cookie", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    for (const query of [
      "disableRefresh=true",
      "disableCookieCache=true",
      "disableRefresh=true&disableCookieCache=true",
      "disableRefresh=false", // coerced with JS truthiness: still "true"
    ]) {
      const res = await rawGetSession(a, query);
      assert.equal(res.json?.session?.token, up.token, `${query}: ${res.text}`);
      assert.equal(res.json.session.userId, up.user.id);
      assert.equal(res.json.user.id, up.user.id);
      assert.equal(res.json.user.email, up.email);
      assert.match(res.json.session.token, TOKEN_RE);
      assert.equal(res.headers.getSetCookie().length, 0, `${query}: no Set-Cookie`);
    }
    // through the client
    for (const q of [{ disableRefresh: true }, { disableCookieCache: true }]) {
      const { data, error } = await a.client.getSession({ query: q });
      assert.equal(error, null, JSON.stringify(error));
      assert.equal(data.session.token, up.token);
      assert.ok(data.session.expiresAt instanceof Date);
      assert.equal(lastCookie(a.jar, SESSION_COOKIE), undefined, "session cookie not re-issued");
      assert.deepEqual(a.jar.lastSetCookies, []);
    }
  });

  test("signed out → 200 null; a revoked session → 200 null with the cookies expired", async () => {
    const anon = newBrowser();
    const none = await anon.client.getSession({ query: { disableRefresh: true } });
    assert.equal(none.error, null);
    assert.equal(none.data, null);
    assert.deepEqual(anon.jar.lastSetCookies, []);

    const a = newBrowser();
    await signUp(a);
    const saved = a.jar.cookieHeader();
    assertOkOwnSessionEnded(a, await a.client.revokeSessions(), "revoke-sessions");
    const res = await getWithCookie("/get-session?disableRefresh=true", saved);
    assert.equal(res.status, 200);
    assert.equal(res.json, null, res.text);
    assertExpired(res.headers.getSetCookie(), "get-session?disableRefresh=true on a revoked session");
  });
});
