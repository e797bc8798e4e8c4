// The username plugin: `username` / `displayUsername` on `POST /sign-up/email`,
// `POST /sign-in/username` and `POST /is-username-available`, driven through the
// official better-auth client with `usernameClient()` (better-auth 1.7.7)
// against the server at $GATEHOUSE_URL. (Username changes through
// /update-user are in account.test.mjs.)
//
// What better-auth 1.7.7 answers (observed on the reference server, which runs
// `username()` with its defaults: 3–30 chars of [a-zA-Z0-9_.], lower-case
// normalization; see also dist/plugins/username/index.mjs):
//  * sign-up/email:
//    - `username` → stored lower-cased; `displayUsername` = the raw username when
//      not given, else kept exactly as given (no validation: "The Both!" is fine);
//    - only `displayUsername`, and it is a valid username → username := its
//      lower-cased copy; an invalid/too short one → username stays null,
//      displayUsername kept;
//    - username already used (compared after lower-casing) → 400
//      {"message":"Username is already taken. Please try another.","code":"USERNAME_IS_ALREADY_TAKEN"}
//      (also when it comes from a displayUsername-only sign-up); no user, no cookie;
//    - too short ("ab", "") → 400 USERNAME_TOO_SHORT "Username is too short",
//      31 chars → 400 USERNAME_TOO_LONG "Username is too long", a char outside
//      [a-zA-Z0-9_.] → 400 INVALID_USERNAME "Username is invalid"; 30 chars and
//      dots are fine.
//  * POST /is-username-available {username}: 200 {"available":false} when a
//    user holds it in any case, else {"available":true}; "" → 422
//    INVALID_USERNAME; too short / too long / invalid → 422 (same codes and
//    messages as above); missing or non-string → 400 VALIDATION_ERROR
//    "[body.username] Invalid input: expected string, received undefined|number".
//  * POST /sign-in/username {username, password, rememberMe?, callbackURL?}:
//    - success: 200 {"redirect":false,"token","user"} (no `url` key) — the same
//      shape and cookie as sign-in/email (session_token Max-Age=604800); the
//      lookup lower-cases the input, so "ALICE_1" finds alice_1;
//    - wrong password, unknown username, "" username or "" password → 401
//      {"message":"Invalid username or password","code":"INVALID_USERNAME_OR_PASSWORD"}, no cookie;
//    - missing username/password → 400 VALIDATION_ERROR "[body.password] Invalid
//      input: expected string, received undefined";
//    - too short / too long / invalid username → 422 USERNAME_TOO_SHORT /
//      USERNAME_TOO_LONG / INVALID_USERNAME; password > 128 chars → 400
//      PASSWORD_TOO_LONG (already in 1.7.7);
//    - rememberMe:false → session_token without Max-Age + dont_remember, 1-day
//      session, exactly as sign-in/email;
//    - callbackURL "/dash" → 200 {"redirect":true,"token","url":"/dash","user"}
//      plus a `Location: /dash` header; an untrusted absolute callbackURL → 403
//      INVALID_CALLBACK_URL;
//    - no form-CSRF check (unlike sign-in/email): a cookie-less request from an
//      untrusted Origin is accepted (200); with a cookie the normal origin check
//      applies (403 INVALID_ORIGIN).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { usernameClient } from "better-auth/client/plugins";
import {
  BASE_URL,
  PASSWORD,
  SIGNATURE_RE,
  TOKEN_RE,
  lastCookie,
  newBrowser,
  postJson,
  splitSigned,
  uniqueEmail,
  uniqueUsername,
} from "./helpers.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const PREFIX = SECURE ? "__Secure-better-auth" : "better-auth";
const SESSION_COOKIE = `${PREFIX}.session_token`;
const DONT_REMEMBER_COOKIE = `${PREFIX}.dont_remember`;
const DAY_MS = 24 * 60 * 60 * 1000;
const SLACK_MS = 2 * 60 * 1000;

const TAKEN = { message: "Username is already taken. Please try another.", code: "USERNAME_IS_ALREADY_TAKEN" };
const TOO_SHORT = { message: "Username is too short", code: "USERNAME_TOO_SHORT" };
const TOO_LONG = { message: "Username is too long", code: "USERNAME_TOO_LONG" };
const INVALID = { message: "Username is invalid", code: "INVALID_USERNAME" };
const BAD_CREDENTIALS = { message: "Invalid username or password", code: "INVALID_USERNAME_OR_PASSWORD" };

/** A browser whose client has the username plugin's actions. */
const browser = (opts = {}) => newBrowser({ ...opts, plugins: [usernameClient()] });

function assertAbout(d, offsetMs, what) {
  assert.ok(d instanceof Date && !Number.isNaN(d.getTime()), `${what} should be a Date: ${d}`);
  const expected = Date.now() + offsetMs;
  assert.ok(Math.abs(d.getTime() - expected) < SLACK_MS, `${what} = ${d.toISOString()}, expected about ${new Date(expected).toISOString()}`);
}

/** sign-up/email with extra fields; returns the client result plus the email used. */
async function signUp(b, extra) {
  const email = uniqueEmail("uname");
  const res = await b.client.signUp.email({ name: "Username User", email, password: PASSWORD, ...extra });
  return { ...res, email };
}

/** sign-up that must succeed. */
async function signUpOk(extra) {
  const b = browser();
  const res = await signUp(b, extra);
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { b, email: res.email, token: res.data.token, user: res.data.user };
}

/** A client error of exactly {status, code, message}, no data, no cookie set. */
function assertClientError(b, res, status, { code, message }, what) {
  assert.equal(res.data, null, what);
  assert.ok(res.error, `${what}: an error`);
  assert.equal(res.error.status, status, `${what}: ${JSON.stringify(res.error)}`);
  assert.equal(res.error.code, code, what);
  assert.equal(res.error.message, message, what);
  assert.equal(b.jar.lastResponse.status, status);
  assert.equal(b.jar.lastSetCookies.length, 0, `${what}: no Set-Cookie`);
}

/** A raw error answer with an exact body. */
function assertRawError(res, status, body, what) {
  assert.equal(res.status, status, `${what}: ${res.text}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(res.json, body, `${what}: exact body`);
  assert.equal(res.headers.getSetCookie().length, 0, `${what}: no Set-Cookie`);
}

function assertSessionCookie(sc, token, { maxAge }) {
  assert.ok(sc, `a ${SESSION_COOKIE} Set-Cookie was sent`);
  const { value, signature } = splitSigned(sc.value);
  assert.equal(value, token);
  assert.match(signature, SIGNATURE_RE);
  assert.equal(sc.attributes["max-age"], maxAge === undefined ? undefined : String(maxAge), sc.raw);
  assert.equal(sc.attributes.expires, undefined, sc.raw);
  assert.equal(sc.attributes.path, "/", sc.raw);
  assert.equal(sc.attributes.httponly, true, sc.raw);
  assert.equal(sc.attributes.samesite, "Lax", sc.raw);
  assert.equal(sc.attributes.secure === true, SECURE, sc.raw);
}

/** No user was created with this email: signing in with it fails. */
async function assertNoUser(email) {
  const b = browser();
  const { error } = await b.client.signIn.email({ email, password: PASSWORD });
  assert.equal(error?.status, 401, `no user was created for ${email}`);
}

describe("sign-up/email with a username", () => {
  test("username is stored lower-cased, displayUsername keeps the raw value", async () => {
    const raw = uniqueUsername("Alice");
    const { b, token, user } = await signUpOk({ username: raw });
    assert.equal(user.username, raw.toLowerCase());
    assert.equal(user.displayUsername, raw);
    const s = await b.client.getSession();
    assert.equal(s.data.session.token, token);
    assert.equal(s.data.user.username, raw.toLowerCase());
    assert.equal(s.data.user.displayUsername, raw);
  });

  test("username and displayUsername: displayUsername is not validated nor normalized", async () => {
    const raw = uniqueUsername("Both");
    const { user } = await signUpOk({ username: raw, displayUsername: "The Both!" });
    assert.equal(user.username, raw.toLowerCase());
    assert.equal(user.displayUsername, "The Both!");
  });

  test("only a valid displayUsername: copied into username (lower-cased)", async () => {
    const raw = uniqueUsername("Disp");
    const { user } = await signUpOk({ displayUsername: raw });
    assert.equal(user.username, raw.toLowerCase());
    assert.equal(user.displayUsername, raw);
  });

  test("only an invalid displayUsername: kept, username stays null", async () => {
    for (const display of [`Not valid ${uniqueUsername("x")}!`, "ab"]) {
      const { user } = await signUpOk({ displayUsername: display });
      assert.equal(user.username, null, `displayUsername ${display}`);
      assert.equal(user.displayUsername, display);
    }
  });

  test("a username taken in any case → 400 USERNAME_IS_ALREADY_TAKEN, no user, no cookie", async () => {
    const raw = uniqueUsername("Dup");
    await signUpOk({ username: raw });
    for (const [extra, what] of [
      [{ username: raw.toUpperCase() }, "upper-case username"],
      [{ username: raw.toLowerCase() }, "lower-case username"],
      [{ displayUsername: raw.toUpperCase() }, "displayUsername-only copied into a taken username"],
    ]) {
      const b = browser();
      const res = await signUp(b, extra);
      assertClientError(b, res, 400, TAKEN, what);
      assert.equal(b.jar.names().length, 0);
      await assertNoUser(res.email);
    }
  });

  test("too short / too long / invalid characters → 400 with the username codes", async () => {
    for (const [username, expected] of [
      ["ab", TOO_SHORT],
      ["", TOO_SHORT],
      ["a".repeat(31), TOO_LONG],
      ["bad-name", INVALID],
      ["bad name", INVALID],
      ["émile_x", INVALID],
    ]) {
      const b = browser();
      const res = await signUp(b, { username });
      assertClientError(b, res, 400, expected, JSON.stringify(username));
      await assertNoUser(res.email);
    }
  });

  test("30 characters, dots and underscores are accepted", async () => {
    const thirty = uniqueUsername("t").padEnd(30, "x");
    assert.equal(thirty.length, 30);
    assert.equal((await signUpOk({ username: thirty })).user.username, thirty);
    const dotted = `d.${uniqueUsername("o")}.`;
    assert.equal((await signUpOk({ username: dotted })).user.username, dotted);
  });
});

describe("POST /is-username-available", () => {
  test("taken (in any case) → {available:false}; free → {available:true}", async () => {
    const raw = uniqueUsername("Avail");
    const { user } = await signUpOk({ username: raw });
    const b = browser();
    for (const probe of [user.username, raw.toUpperCase(), raw]) {
      const { data, error } = await b.client.isUsernameAvailable({ username: probe });
      assert.equal(error, null, JSON.stringify(error));
      assert.equal(b.jar.lastResponse.status, 200);
      assert.deepEqual(data, { available: false }, probe);
    }
    const free = await b.client.isUsernameAvailable({ username: uniqueUsername("Free") });
    assert.deepEqual(free.data, { available: true });
    assert.equal(b.jar.lastSetCookies.length, 0);

    // a username that came from a displayUsername-only sign-up counts too
    const disp = uniqueUsername("FromDisp");
    await signUpOk({ displayUsername: disp });
    assert.deepEqual((await b.client.isUsernameAvailable({ username: disp })).data, { available: false });
  });

  test("too short / too long / invalid / empty → 422 with the username codes", async () => {
    for (const [username, expected] of [
      ["ab", TOO_SHORT],
      ["a".repeat(31), TOO_LONG],
      ["bad-name", INVALID],
      ["", INVALID],
    ]) {
      const b = browser();
      const res = await b.client.isUsernameAvailable({ username });
      assertClientError(b, res, 422, expected, JSON.stringify(username));
    }
  });

  test("missing or non-string username → 400 VALIDATION_ERROR", async () => {
    const b = browser();
    assertRawError(
      await postJson(b.jar, "/is-username-available", {}),
      400,
      { message: "[body.username] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" },
      "missing"
    );
    assertRawError(
      await postJson(b.jar, "/is-username-available", { username: 5 }),
      400,
      { message: "[body.username] Invalid input: expected string, received number", code: "VALIDATION_ERROR" },
      "number"
    );
  });
});

describe("POST /sign-in/username", () => {
  test("success: same shape and cookie as sign-in/email; the lookup ignores case", async () => {
    const raw = uniqueUsername("Alice");
    const { email, user: created } = await signUpOk({ username: raw });

    const b = browser();
    const { data, error } = await b.client.signIn.username({ username: raw.toUpperCase(), password: PASSWORD });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(b.jar.lastResponse.status, 200);
    assert.equal(data.redirect, false);
    assert.equal("url" in data, false, "no url without callbackURL");
    assert.match(data.token, TOKEN_RE);
    assert.equal(data.user.id, created.id);
    assert.equal(data.user.email, email);
    assert.equal(data.user.username, raw.toLowerCase());
    assert.equal(data.user.displayUsername, raw);
    assert.equal("password" in data.user, false);
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), data.token, { maxAge: 604800 });
    assert.equal(lastCookie(b.jar, DONT_REMEMBER_COOKIE), undefined);

    const s = await b.client.getSession();
    assert.equal(s.data.session.token, data.token);
    assert.equal(s.data.user.id, created.id);
    assertAbout(s.data.session.expiresAt, 7 * DAY_MS, "session.expiresAt");

    // the very same top-level shape as /sign-in/email
    const e = browser();
    const viaEmail = await e.client.signIn.email({ email, password: PASSWORD });
    assert.deepEqual(Object.keys(data).sort(), Object.keys(viaEmail.data).sort());
    assert.deepEqual(Object.keys(data.user).sort(), Object.keys(viaEmail.data.user).sort());
    assert.deepEqual(Object.keys(data).sort(), ["redirect", "token", "user"]);
  });

  test("wrong password and unknown username → the same 401 INVALID_USERNAME_OR_PASSWORD", async () => {
    const raw = uniqueUsername("Guard");
    await signUpOk({ username: raw });
    for (const [body, what] of [
      [{ username: raw, password: `${PASSWORD}-wrong` }, "wrong password"],
      [{ username: uniqueUsername("nobody"), password: PASSWORD }, "unknown username"],
      [{ username: "", password: PASSWORD }, "empty username"],
      [{ username: raw, password: "" }, "empty password"],
    ]) {
      const b = browser();
      const res = await b.client.signIn.username(body);
      assertClientError(b, res, 401, BAD_CREDENTIALS, what);
      assert.equal(b.jar.names().length, 0);
    }
  });

  test("missing fields → 400 VALIDATION_ERROR", async () => {
    const b = browser();
    assertRawError(
      await postJson(b.jar, "/sign-in/username", { username: uniqueUsername("np") }),
      400,
      { message: "[body.password] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" },
      "no password"
    );
    assertRawError(
      await postJson(b.jar, "/sign-in/username", { password: PASSWORD }),
      400,
      { message: "[body.username] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" },
      "no username"
    );
  });

  test("malformed usernames → 422; an over-long password → 400 PASSWORD_TOO_LONG", async () => {
    for (const [username, expected] of [
      ["ab", TOO_SHORT],
      ["a".repeat(31), TOO_LONG],
      ["bad-name", INVALID],
    ]) {
      const b = browser();
      const res = await b.client.signIn.username({ username, password: PASSWORD });
      assertClientError(b, res, 422, expected, username);
    }
    const raw = uniqueUsername("Long");
    await signUpOk({ username: raw });
    const b = browser();
    const res = await b.client.signIn.username({ username: raw, password: "x".repeat(129) });
    assertClientError(b, res, 400, { message: "Password too long", code: "PASSWORD_TOO_LONG" }, "129-char password");
  });

  test("rememberMe:false → session-only cookie, dont_remember, 1-day session", async () => {
    const raw = uniqueUsername("Forget");
    await signUpOk({ username: raw });
    const b = browser();
    const { data, error } = await b.client.signIn.username({ username: raw, password: PASSWORD, rememberMe: false });
    assert.equal(error, null, JSON.stringify(error));
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), data.token, { maxAge: undefined });
    const dr = lastCookie(b.jar, DONT_REMEMBER_COOKIE);
    assert.ok(dr, `dont_remember set: ${b.jar.lastSetCookies.join(" | ")}`);
    assert.equal(splitSigned(dr.value).value, "true");
    assert.match(splitSigned(dr.value).signature, SIGNATURE_RE);
    assert.equal(dr.attributes["max-age"], undefined);
    assert.equal(dr.attributes.path, "/");
    assert.equal(dr.attributes.httponly, true);

    const s = await b.client.getSession();
    assert.equal(s.data.session.token, data.token);
    assertAbout(s.data.session.expiresAt, DAY_MS, "session.expiresAt (rememberMe false)");
    assert.equal(lastCookie(b.jar, SESSION_COOKIE), undefined, "get-session does not re-issue the cookie");
  });

  test("callbackURL: redirect true, url, Location header; an untrusted one → 403 INVALID_CALLBACK_URL", async () => {
    const raw = uniqueUsername("Cb");
    await signUpOk({ username: raw });
    const b = browser();
    const res = await postJson(b.jar, "/sign-in/username", { username: raw, password: PASSWORD, callbackURL: "/dash" });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get("location"), "/dash");
    assert.deepEqual(Object.keys(res.json).sort(), ["redirect", "token", "url", "user"]);
    assert.equal(res.json.redirect, true);
    assert.equal(res.json.url, "/dash");
    assert.match(res.json.token, TOKEN_RE);
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), res.json.token, { maxAge: 604800 });

    const e = browser();
    assertRawError(
      await postJson(e.jar, "/sign-in/username", { username: raw, password: PASSWORD, callbackURL: "http://evil.example/x" }),
      403,
      { message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" },
      "untrusted callbackURL"
    );
  });

  // Unlike /sign-in/email (formCsrfMiddleware), /sign-in/username only has the
  // generic origin check, which skips cookie-less requests.
  test("origin: a cookie-less sign-in from an untrusted Origin is accepted; with a cookie → 403", async () => {
    const raw = uniqueUsername("Orig");
    const { b: owner } = await signUpOk({ username: raw });

    const evil = browser({ origin: "http://evil.example" });
    const { data, error } = await evil.client.signIn.username({ username: raw, password: PASSWORD });
    assert.equal(error, null, JSON.stringify(error));
    assert.match(data.token, TOKEN_RE);

    const withCookie = owner.jar.clone();
    withCookie.origin = "http://evil.example";
    assertRawError(
      await postJson(withCookie, "/sign-in/username", { username: raw, password: PASSWORD }),
      403,
      { message: "Invalid origin", code: "INVALID_ORIGIN" },
      "cookie-bearing, untrusted Origin"
    );
  });
});
