// The signed-in user's own account: `POST /update-user`, `POST /change-password`,
// `GET /list-accounts`, `GET /account-info` and the server-only `set-password`,
// driven through the official better-auth client (better-auth/client 1.7.7)
// against the server at $GATEHOUSE_URL.
//
// What better-auth 1.7.7 answers (observed on the reference server, which runs
// the username, admin and organization plugins; see also
// dist/api/routes/update-user.mjs and account.mjs):
//  * POST /update-user (auth: session; body schema: a JSON record):
//    - {name} / {image} / {image: null} → 200 {"status":true} and the session
//      cookie re-issued with the SAME token (Max-Age=604800, or no Max-Age plus a
//      fresh dont_remember when the request carries a valid dont_remember cookie);
//      the change shows in the next get-session (user.updatedAt moves).
//    - {email: <truthy>} → 400 {"message":"Email can not be updated","code":"EMAIL_CAN_NOT_BE_UPDATED"}
//    - a non-input plugin field with a truthy value ({role:"admin"}, {banned:true})
//      → 400 {"message":"<field> is not allowed to be set","code":"FIELD_NOT_ALLOWED"},
//      even next to a valid name (nothing is changed); a falsy one ({banned:false})
//      is dropped silently.
//    - nothing left to update ({}, {emailVerified:true}, {foo:"bar"}, {banned:false})
//      → 400 {"message":"No fields to update"} (no code key). emailVerified is
//      ignored when sent with a name: 200 and emailVerified stays false.
//    - body not a record: [] / 5 / "str" → 400 VALIDATION_ERROR
//      "[body] Invalid input: expected record, received array|number|string"
//      (a JSON null body, or no body, makes the reference crash with an empty
//      500 — not tested).
//    - signed out → 401 {"message":"Unauthorized","code":"UNAUTHORIZED"}, also
//      for {} (the session check comes before "No fields to update"); but schema
//      validation comes first ([] signed out → the 400 above).
//    - username (plugin hook, runs BEFORE the session check):
//      too short / too long / invalid → 400 USERNAME_TOO_SHORT / USERNAME_TOO_LONG /
//      INVALID_USERNAME; another user's username in any case → 400
//      USERNAME_IS_ALREADY_TAKEN (also for a signed-out caller); the caller's own
//      username in another case → 200. Stored lower-cased; displayUsername is NOT
//      changed by a username change. displayUsername can be set on its own, kept raw.
//  * POST /change-password (auth: sensitive; body {newPassword: string,
//    currentPassword: string, revokeOtherSessions?: boolean}):
//    - length checks first: new < 8 → 400 PASSWORD_TOO_SHORT "Password too short",
//      new > 128 or current > 128 → 400 PASSWORD_TOO_LONG "Password too long";
//      then wrong (or empty) current → 400 INVALID_PASSWORD "Invalid password".
//    - success → 200 {"token":null,"user":{…}} (the user as before, no Set-Cookie);
//      the old password stops working, the new one works; sessions untouched.
//    - revokeOtherSessions:true → every session of the user is deleted (the
//      caller's too), a new one is created: 200 {"token":"<new token>","user"},
//      session_token set to the new token (Max-Age=604800; in a rememberMe:false
//      browser no Max-Age + dont_remember again, while the new row still gets the
//      7-day expiresAt).
//    - missing fields → 400 VALIDATION_ERROR "[body.newPassword] Invalid input:
//      expected string, received undefined; [body.currentPassword] …" (both, "; "-joined);
//      revokeOtherSessions:"yes" → "[body.revokeOtherSessions] Invalid input: expected boolean, received string".
//  * GET /list-accounts (auth: session): 200 [{id, providerId:"credential",
//    accountId:<user id>, userId, createdAt, updatedAt, scopes:[]}] — exactly
//    those keys, no password / tokens.
//  * GET /account-info (no session middleware; query schema is a strict union
//    {accountId, userId?} | {useAccountCookie: true, userId?}):
//    - no query, or useAccountCookie=true (a query string is never the literal
//      `true`) → 400 {"message":"[query] Invalid input","code":"VALIDATION_ERROR"};
//      an extra key → "[query] Unrecognized key: \"foo\""; all before the session check;
//    - signed out with a valid query → 401 with an EMPTY body;
//    - the credential account's id → 400 {"message":"Account is not associated
//      with a configured social provider.","code":"PROVIDER_NOT_CONFIGURED"};
//    - an unknown id, the user id, or another user's account id → 400
//      {"message":"Account not found","code":"ACCOUNT_NOT_FOUND"}.
//  * set-password is server-only: POST (or GET) /set-password → 404, empty body.
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
  parseSetCookie,
  postJson,
  splitSigned,
  uniqueEmail,
  uniqueUsername,
} from "./helpers.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const PREFIX = SECURE ? "__Secure-better-auth" : "better-auth";
const SESSION_COOKIE = `${PREFIX}.session_token`;
const DONT_REMEMBER_COOKIE = `${PREFIX}.dont_remember`;
const UNAUTHORIZED = { message: "Unauthorized", code: "UNAUTHORIZED" };
const NO_FIELDS = { message: "No fields to update" };
const NEW_PASSWORD = "Brand-New-Password-42";
const DAY_MS = 24 * 60 * 60 * 1000;
const SLACK_MS = 2 * 60 * 1000;
const ID_RE = /^[A-Za-z0-9]{32}$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function assertAbout(d, offsetMs, what) {
  assert.ok(d instanceof Date && !Number.isNaN(d.getTime()), `${what} should be a Date: ${d}`);
  const expected = Date.now() + offsetMs;
  assert.ok(Math.abs(d.getTime() - expected) < SLACK_MS, `${what} = ${d.toISOString()}, expected about ${new Date(expected).toISOString()}`);
}

async function signUp(browser, extra = {}) {
  const email = uniqueEmail("account");
  const res = await browser.client.signUp.email({ name: "Account Owner", email, password: PASSWORD, ...extra });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { email, token: res.data.token, user: res.data.user };
}

async function signIn(browser, email, password = PASSWORD, extra = {}) {
  const res = await browser.client.signIn.email({ email, password, ...extra });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return res.data.token;
}

/** {session, user} of the browser's live session. */
async function current(browser) {
  const { data, error } = await browser.client.getSession();
  assert.equal(error, null, JSON.stringify(error));
  assert.ok(data?.session, `browser has a live session: ${JSON.stringify(data)}`);
  return data;
}

/** A fresh browser's sign-in attempt: the HTTP status and error code. */
async function tryPassword(email, password) {
  const b = newBrowser();
  const { data, error } = await b.client.signIn.email({ email, password });
  return { status: b.jar.lastResponse.status, code: error?.code ?? null, token: data?.token ?? null };
}

/** Raw request without any cookie (the site's Origin only). */
async function anonymous(method, path, body) {
  const res = await fetch(`${AUTH_URL}${path}`, {
    method,
    headers: { origin: new URL(BASE_URL).origin, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

/** A raw 400 (or other) error answer with an exact JSON body and no Set-Cookie. */
function assertErrorBody(res, status, body, what) {
  assert.equal(res.status, status, `${what}: ${res.text}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, what);
  assert.deepEqual(res.json, body, `${what}: exact body`);
  assert.equal(res.headers.getSetCookie().length, 0, `${what}: no Set-Cookie`);
}

/** The re-issued session cookie carries `token`; `maxAge` undefined = session-only. */
function assertSessionCookie(sc, token, { maxAge }) {
  assert.ok(sc, `a ${SESSION_COOKIE} Set-Cookie was sent`);
  const { value, signature } = splitSigned(sc.value);
  assert.equal(value, token, `cookie carries the token: ${sc.raw}`);
  assert.match(signature, SIGNATURE_RE);
  assert.equal(sc.attributes["max-age"], maxAge === undefined ? undefined : String(maxAge), sc.raw);
  assert.equal(sc.attributes.path, "/", sc.raw);
  assert.equal(sc.attributes.httponly, true, sc.raw);
  assert.equal(sc.attributes.samesite, "Lax", sc.raw);
}

describe("POST /update-user", () => {
  test("name and image: {status:true}, cookie re-issued for the same session, visible in get-session", async () => {
    const a = newBrowser();
    const up = await signUp(a);

    const r1 = await a.client.updateUser({ name: "Renamed Owner" });
    assert.equal(r1.error, null, JSON.stringify(r1.error));
    assert.equal(a.jar.lastResponse.status, 200);
    assert.deepEqual(r1.data, { status: true });
    assertSessionCookie(lastCookie(a.jar, SESSION_COOKIE), up.token, { maxAge: 604800 });
    assert.equal(lastCookie(a.jar, DONT_REMEMBER_COOKIE), undefined);

    const r2 = await a.client.updateUser({ image: "https://example.com/avatar.png" });
    assert.deepEqual(r2.data, { status: true });

    const s1 = await current(a);
    assert.equal(s1.session.token, up.token, "same session");
    assert.equal(s1.user.id, up.user.id);
    assert.equal(s1.user.name, "Renamed Owner");
    assert.equal(s1.user.image, "https://example.com/avatar.png");
    assert.equal(s1.user.email, up.email, "email untouched");
    assert.ok(s1.user.updatedAt.getTime() >= up.user.updatedAt.getTime(), "updatedAt moves forward");
    assert.equal(s1.user.createdAt.getTime(), up.user.createdAt.getTime());

    const r3 = await a.client.updateUser({ image: null });
    assert.deepEqual(r3.data, { status: true });
    const s2 = await current(a);
    assert.equal(s2.user.image, null, "image:null clears it");
    assert.equal(s2.user.name, "Renamed Owner");

    // another browser of the same user sees the change too
    const b = newBrowser();
    await signIn(b, up.email);
    assert.equal((await current(b)).user.name, "Renamed Owner");
  });

  test("in a rememberMe:false browser the re-issued cookie stays session-only", async () => {
    const up = await signUp(newBrowser());
    const b = newBrowser();
    const token = await signIn(b, up.email, PASSWORD, { rememberMe: false });
    const res = await b.client.updateUser({ name: "Forgetful" });
    assert.deepEqual(res.data, { status: true });
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), token, { maxAge: undefined });
    const dr = lastCookie(b.jar, DONT_REMEMBER_COOKIE);
    assert.ok(dr, `dont_remember re-sent: ${b.jar.lastSetCookies.join(" | ")}`);
    assert.equal(splitSigned(dr.value).value, "true");
    assert.equal(dr.attributes["max-age"], undefined);
    assert.equal((await current(b)).user.name, "Forgetful");
  });

  test("email → 400 EMAIL_CAN_NOT_BE_UPDATED, nothing changes", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const expected = { message: "Email can not be updated", code: "EMAIL_CAN_NOT_BE_UPDATED" };
    assertErrorBody(await postJson(a.jar, "/update-user", { email: uniqueEmail("new") }), 400, expected, "email");
    assertErrorBody(
      await postJson(a.jar, "/update-user", { email: uniqueEmail("new"), name: "Sneaky" }),
      400,
      expected,
      "email + name"
    );
    const viaClient = await a.client.updateUser({ email: uniqueEmail("new") });
    assert.equal(viaClient.data, null);
    assert.equal(viaClient.error.status, 400);
    assert.equal(viaClient.error.code, "EMAIL_CAN_NOT_BE_UPDATED");
    const { user } = await current(a);
    assert.equal(user.email, up.email);
    assert.equal(user.name, "Account Owner");
  });

  test("non-input plugin fields (role, banned) → 400 FIELD_NOT_ALLOWED, nothing changes", async () => {
    const a = newBrowser();
    await signUp(a);
    assertErrorBody(
      await postJson(a.jar, "/update-user", { role: "admin" }),
      400,
      { message: "role is not allowed to be set", code: "FIELD_NOT_ALLOWED" },
      "role"
    );
    assertErrorBody(
      await postJson(a.jar, "/update-user", { role: "admin", name: "Wannabe Admin" }),
      400,
      { message: "role is not allowed to be set", code: "FIELD_NOT_ALLOWED" },
      "role + name"
    );
    assertErrorBody(
      await postJson(a.jar, "/update-user", { banned: true }),
      400,
      { message: "banned is not allowed to be set", code: "FIELD_NOT_ALLOWED" },
      "banned"
    );
    // a falsy value is dropped silently: nothing left to update
    assertErrorBody(await postJson(a.jar, "/update-user", { banned: false }), 400, NO_FIELDS, "banned:false");
    const { user } = await current(a);
    assert.equal(user.role, "user");
    assert.equal(user.banned, false);
    assert.equal(user.name, "Account Owner");
  });

  test("emailVerified is ignored: alone → No fields to update; with a name → 200, still unverified", async () => {
    const a = newBrowser();
    await signUp(a);
    assertErrorBody(await postJson(a.jar, "/update-user", { emailVerified: true }), 400, NO_FIELDS, "emailVerified");
    const res = await postJson(a.jar, "/update-user", { emailVerified: true, name: "Still Unverified" });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { status: true });
    const { user } = await current(a);
    assert.equal(user.name, "Still Unverified");
    assert.equal(user.emailVerified, false);
  });

  test("empty body {} and unknown keys → 400 {message: 'No fields to update'} without a code", async () => {
    const a = newBrowser();
    await signUp(a);
    assertErrorBody(await postJson(a.jar, "/update-user", {}), 400, NO_FIELDS, "{}");
    assertErrorBody(await postJson(a.jar, "/update-user", { foo: "bar" }), 400, NO_FIELDS, "{foo}");
    // the client (which sends {} only with an explicit POST) sees no code
    const viaClient = await a.client.updateUser({ foo: "bar" });
    assert.equal(viaClient.data, null);
    assert.equal(viaClient.error.status, 400);
    assert.equal(viaClient.error.message, "No fields to update");
    assert.equal(viaClient.error.code, undefined);
  });

  test("a body that is not a JSON object → 400 VALIDATION_ERROR expected record", async () => {
    const a = newBrowser();
    await signUp(a);
    for (const [body, kind] of [[[], "array"], [5, "number"], ["str", "string"]]) {
      assertErrorBody(
        await postJson(a.jar, "/update-user", body),
        400,
        { message: `[body] Invalid input: expected record, received ${kind}`, code: "VALIDATION_ERROR" },
        JSON.stringify(body)
      );
    }
  });

  test("signed out → 401 UNAUTHORIZED (even for {}); a non-object body is rejected first", async () => {
    assertErrorBody(await anonymous("POST", "/update-user", { name: "x" }), 401, UNAUTHORIZED, "{name}");
    assertErrorBody(await anonymous("POST", "/update-user", {}), 401, UNAUTHORIZED, "{}");
    assertErrorBody(
      await anonymous("POST", "/update-user", []),
      400,
      { message: "[body] Invalid input: expected record, received array", code: "VALIDATION_ERROR" },
      "[] signed out"
    );
    const b = newBrowser();
    const { data, error } = await b.client.updateUser({ name: "x" });
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHORIZED");
    assert.equal(error.message, "Unauthorized");
  });

  test("username: normalized to lower case, displayUsername left alone", async () => {
    const a = newBrowser();
    const display = uniqueUsername("Disp");
    const up = await signUp(a, { username: display });
    assert.equal(up.user.displayUsername, display);

    const wanted = uniqueUsername("NewName");
    const res = await a.client.updateUser({ username: wanted });
    assert.deepEqual(res.data, { status: true });
    const { user } = await current(a);
    assert.equal(user.username, wanted.toLowerCase());
    assert.equal(user.displayUsername, display, "displayUsername is not changed by a username change");

    // a user without a displayUsername keeps null
    const b = newBrowser();
    const upB = await signUp(b);
    assert.equal(upB.user.displayUsername ?? null, null);
    const name = uniqueUsername("Plain");
    assert.deepEqual((await b.client.updateUser({ username: name })).data, { status: true });
    const u2 = (await current(b)).user;
    assert.equal(u2.username, name.toLowerCase());
    assert.equal(u2.displayUsername, null);

    // displayUsername on its own is stored raw
    assert.deepEqual((await b.client.updateUser({ displayUsername: "Fancy Name!" })).data, { status: true });
    const u3 = (await current(b)).user;
    assert.equal(u3.displayUsername, "Fancy Name!");
    assert.equal(u3.username, name.toLowerCase());
  });

  test("username taken by another user (any case) → 400 USERNAME_IS_ALREADY_TAKEN; own username is fine", async () => {
    const owner = newBrowser();
    const taken = uniqueUsername("Taken");
    await signUp(owner, { username: taken });
    const a = newBrowser();
    const mine = uniqueUsername("mine");
    await signUp(a, { username: mine });

    const expected = { message: "Username is already taken. Please try another.", code: "USERNAME_IS_ALREADY_TAKEN" };
    assertErrorBody(await postJson(a.jar, "/update-user", { username: taken.toUpperCase() }), 400, expected, "taken");
    assertErrorBody(await postJson(a.jar, "/update-user", { username: taken.toLowerCase(), name: "x" }), 400, expected, "taken + name");
    const viaClient = await a.client.updateUser({ username: taken });
    assert.equal(viaClient.error?.status, 400);
    assert.equal(viaClient.error.code, "USERNAME_IS_ALREADY_TAKEN");

    // the caller's own username, in another case: allowed
    const own = await postJson(a.jar, "/update-user", { username: mine.toUpperCase() });
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(own.json, { status: true });
    const { user } = await current(a);
    assert.equal(user.username, mine.toLowerCase());
    assert.equal(user.name, "Account Owner");
  });

  test("invalid usernames → 400 USERNAME_TOO_SHORT / USERNAME_TOO_LONG / INVALID_USERNAME", async () => {
    const a = newBrowser();
    await signUp(a);
    for (const [username, code, message] of [
      ["ab", "USERNAME_TOO_SHORT", "Username is too short"],
      ["a".repeat(31), "USERNAME_TOO_LONG", "Username is too long"],
      ["bad name!", "INVALID_USERNAME", "Username is invalid"],
      ["with-dash", "INVALID_USERNAME", "Username is invalid"],
    ]) {
      assertErrorBody(await postJson(a.jar, "/update-user", { username }), 400, { message, code }, username);
    }
    assert.equal((await current(a)).user.username, null);
  });

  // The username plugin's before-hook runs ahead of the session check.
  // better-auth runs the username checks before the session check, so a signed-out
  // caller hears whether a username is taken; Gatehouse answers 401 before looking
  // at anything (README, "Where Gatehouse is stricter"). Either way nothing changes.
  test("signed out: a username problem (better-auth) or 401 (Gatehouse), nothing changes", async () => {
    const owner = newBrowser();
    const taken = uniqueUsername("held");
    await signUp(owner, { username: taken });
    const res = await anonymous("POST", "/update-user", { username: taken });
    if (res.status === 401) {
      assertErrorBody(res, 401, UNAUTHORIZED, "signed out, taken username");
    } else {
      assertErrorBody(
        res,
        400,
        { message: "Username is already taken. Please try another.", code: "USERNAME_IS_ALREADY_TAKEN" },
        "signed out, taken username"
      );
    }
    const short = await anonymous("POST", "/update-user", { username: "ab" });
    if (short.status === 401) {
      assertErrorBody(short, 401, UNAUTHORIZED, "signed out, short username");
    } else {
      assertErrorBody(short, 400, { message: "Username is too short", code: "USERNAME_TOO_SHORT" }, "signed out, short username");
    }
    assertErrorBody(await anonymous("POST", "/update-user", { username: uniqueUsername("free") }), 401, UNAUTHORIZED, "signed out, free username");
    assert.equal((await owner.client.getSession()).data.user.username, taken.toLowerCase(), "the holder keeps it");
  });
});

describe("POST /change-password", () => {
  test("wrong current password → 400 INVALID_PASSWORD; password and session unchanged", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const { data, error } = await a.client.changePassword({ currentPassword: `${PASSWORD}-wrong`, newPassword: NEW_PASSWORD });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "INVALID_PASSWORD");
    assert.equal(error.message, "Invalid password");
    assert.deepEqual(a.jar.lastSetCookies, []);
    assertErrorBody(
      await postJson(a.jar, "/change-password", { currentPassword: "", newPassword: NEW_PASSWORD }),
      400,
      { message: "Invalid password", code: "INVALID_PASSWORD" },
      "empty current password"
    );
    assert.equal((await current(a)).session.token, up.token);
    assert.equal((await tryPassword(up.email, PASSWORD)).status, 200, "old password still works");
    assert.equal((await tryPassword(up.email, NEW_PASSWORD)).status, 401);
  });

  test("length checks: PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG, before the current password is checked", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const short = { message: "Password too short", code: "PASSWORD_TOO_SHORT" };
    const long = { message: "Password too long", code: "PASSWORD_TOO_LONG" };
    for (const [body, expected, what] of [
      [{ currentPassword: PASSWORD, newPassword: "short7!" }, short, "7-char new"],
      [{ currentPassword: PASSWORD, newPassword: "x".repeat(129) }, long, "129-char new"],
      [{ currentPassword: "x".repeat(129), newPassword: NEW_PASSWORD }, long, "129-char current"],
      [{ currentPassword: "wrong", newPassword: "short" }, short, "short new + wrong current"],
    ]) {
      assertErrorBody(await postJson(a.jar, "/change-password", body), 400, expected, what);
    }
    const viaClient = await a.client.changePassword({ currentPassword: PASSWORD, newPassword: "short7!" });
    assert.equal(viaClient.error?.status, 400);
    assert.equal(viaClient.error.code, "PASSWORD_TOO_SHORT");
    assert.equal((await tryPassword(up.email, PASSWORD)).status, 200, "password unchanged");
  });

  test("missing / wrong-typed fields → 400 VALIDATION_ERROR", async () => {
    const a = newBrowser();
    await signUp(a);
    const cases = [
      [{}, "[body.newPassword] Invalid input: expected string, received undefined; [body.currentPassword] Invalid input: expected string, received undefined"],
      [{ newPassword: NEW_PASSWORD }, "[body.currentPassword] Invalid input: expected string, received undefined"],
      [{ currentPassword: PASSWORD }, "[body.newPassword] Invalid input: expected string, received undefined"],
      [
        { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, revokeOtherSessions: "yes" },
        "[body.revokeOtherSessions] Invalid input: expected boolean, received string",
      ],
    ];
    for (const [body, message] of cases) {
      assertErrorBody(await postJson(a.jar, "/change-password", body), 400, { message, code: "VALIDATION_ERROR" }, JSON.stringify(body));
    }
  });

  test("success: {token: null, user}, no cookie change; old password out, new one in; sessions kept", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    const tokenB = await signIn(b, up.email);

    const { data, error } = await a.client.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(a.jar.lastResponse.status, 200);
    assert.equal(data.token, null);
    assert.equal(data.user.id, up.user.id);
    assert.equal(data.user.email, up.email);
    assert.equal(data.user.name, "Account Owner");
    assert.equal(data.user.emailVerified, false);
    assert.ok(data.user.createdAt instanceof Date);
    assert.equal("password" in data.user, false);
    assert.deepEqual(Object.keys(data).sort(), ["token", "user"]);
    assert.deepEqual(a.jar.lastSetCookies, [], "no Set-Cookie without revokeOtherSessions");

    const old = await tryPassword(up.email, PASSWORD);
    assert.equal(old.status, 401);
    assert.equal(old.code, "INVALID_EMAIL_OR_PASSWORD");
    const fresh = await tryPassword(up.email, NEW_PASSWORD);
    assert.equal(fresh.status, 200);
    assert.match(fresh.token, TOKEN_RE);

    assert.equal((await current(a)).session.token, up.token, "the caller's session lives on");
    assert.equal((await current(b)).session.token, tokenB, "the other browser's session lives on");
  });

  test("revokeOtherSessions: a new session and cookie; every old session (the caller's too) is gone", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const oldCookie = a.jar.cookieHeader();
    const b = newBrowser();
    await signIn(b, up.email);
    const stranger = newBrowser();
    const upS = await signUp(stranger);

    const { data, error } = await a.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      revokeOtherSessions: true,
    });
    assert.equal(error, null, JSON.stringify(error));
    assert.match(data.token, TOKEN_RE);
    assert.notEqual(data.token, up.token, "a brand-new session");
    assert.equal(data.user.id, up.user.id);
    assertSessionCookie(lastCookie(a.jar, SESSION_COOKIE), data.token, { maxAge: 604800 });
    assert.equal(lastCookie(a.jar, DONT_REMEMBER_COOKIE), undefined);

    const s = await current(a);
    assert.equal(s.session.token, data.token);
    assertAbout(s.session.expiresAt, 7 * DAY_MS, "new session expiresAt");
    const list = await a.client.listSessions();
    assert.deepEqual(list.data.map((x) => x.token), [data.token], "the new session is the only one");

    const replay = await getWithCookie("/get-session", oldCookie);
    assert.equal(replay.json, null, "the caller's OLD token is revoked too");
    const inB = await b.client.getSession();
    assert.equal(inB.data, null, "the other browser is signed out");
    assert.equal((await current(stranger)).session.token, upS.token, "other users untouched");
    assert.equal((await tryPassword(up.email, NEW_PASSWORD)).status, 200);
  });

  test("revokeOtherSessions in a rememberMe:false browser: session-only cookie again, 7-day row", async () => {
    const up = await signUp(newBrowser());
    const b = newBrowser();
    await signIn(b, up.email, PASSWORD, { rememberMe: false });
    const { data, error } = await b.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      revokeOtherSessions: true,
    });
    assert.equal(error, null, JSON.stringify(error));
    assertSessionCookie(lastCookie(b.jar, SESSION_COOKIE), data.token, { maxAge: undefined });
    assert.equal(splitSigned(lastCookie(b.jar, DONT_REMEMBER_COOKIE)?.value ?? "").value, "true");
    const s = await current(b);
    assert.equal(s.session.token, data.token);
    // 1.7.7's new session ignores dont_remember and lives 7 days; Gatehouse keeps the
    // browser's "don't remember me" (a 1-day session). Either way the cookie is session-only.
    const lifetime = s.session.expiresAt.getTime() - Date.now();
    assert.ok(
      Math.abs(lifetime - 7 * DAY_MS) < 2 * 60 * 1000 || Math.abs(lifetime - DAY_MS) < 2 * 60 * 1000,
      `new session expiresAt ${s.session.expiresAt.toISOString()}: 7 days (1.7.7) or 1 day (don't remember)`
    );
  });

  test("signed out → 401 UNAUTHORIZED (a body failing the schema gets the 400 first)", async () => {
    assertErrorBody(
      await anonymous("POST", "/change-password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
      401,
      UNAUTHORIZED,
      "signed out"
    );
    const b = newBrowser();
    const { data, error } = await b.client.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHORIZED");
    const bad = await anonymous("POST", "/change-password", {});
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, "VALIDATION_ERROR");
  });
});

describe("GET /list-accounts", () => {
  const FIELDS = ["accountId", "createdAt", "id", "providerId", "scopes", "updatedAt", "userId"];

  test("an email+password user has exactly one credential account, no secrets", async () => {
    const a = newBrowser();
    const up = await signUp(a);

    const raw = await getWithCookie("/list-accounts", a.jar.cookieHeader());
    assert.equal(raw.status, 200, raw.text);
    assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(raw.headers.getSetCookie().length, 0);
    assert.ok(Array.isArray(raw.json) && raw.json.length === 1, raw.text);
    const [acc] = raw.json;
    assert.deepEqual(Object.keys(acc).sort(), FIELDS, `exact field set: ${raw.text}`);
    assert.equal(acc.providerId, "credential");
    assert.equal(acc.accountId, up.user.id, "accountId = user id");
    assert.equal(acc.userId, up.user.id);
    assert.match(acc.id, ID_RE);
    assert.notEqual(acc.id, up.user.id, "the account row has its own id");
    assert.deepEqual(acc.scopes, []);
    assert.match(acc.createdAt, ISO_RE);
    assert.match(acc.updatedAt, ISO_RE);

    const { data, error } = await a.client.listAccounts();
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data.length, 1);
    assert.equal(data[0].id, acc.id);
    assert.ok(data[0].createdAt instanceof Date);

    // another user's browser lists only its own account
    const b = newBrowser();
    const upB = await signUp(b);
    const listB = (await b.client.listAccounts()).data;
    assert.deepEqual(listB.map((x) => x.userId), [upB.user.id]);
  });

  test("signed out / tampered cookie → 401 UNAUTHORIZED", async () => {
    assertErrorBody(await anonymous("GET", "/list-accounts"), 401, UNAUTHORIZED, "signed out");
    const raw = await getWithCookie("/list-accounts", `${SESSION_COOKIE}=abc.def`);
    assert.equal(raw.status, 401);
    assert.deepEqual(raw.json, UNAUTHORIZED);
    const b = newBrowser();
    const { data, error } = await b.client.listAccounts();
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, "UNAUTHORIZED");
  });
});

describe("GET /account-info", () => {
  test("the credential account → 400 PROVIDER_NOT_CONFIGURED", async () => {
    const a = newBrowser();
    await signUp(a);
    const [acc] = (await a.client.listAccounts()).data;
    const raw = await getWithCookie(`/account-info?accountId=${encodeURIComponent(acc.id)}`, a.jar.cookieHeader());
    assertErrorBody(
      raw,
      400,
      { message: "Account is not associated with a configured social provider.", code: "PROVIDER_NOT_CONFIGURED" },
      "credential account"
    );
    const { data, error } = await a.client.accountInfo({ query: { accountId: acc.id } });
    assert.equal(data, null);
    assert.equal(error.status, 400);
    assert.equal(error.code, "PROVIDER_NOT_CONFIGURED");
  });

  test("unknown id, the user id, or another user's account id → 400 ACCOUNT_NOT_FOUND", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const b = newBrowser();
    await signUp(b);
    const [accB] = (await b.client.listAccounts()).data;
    for (const id of ["no-such-account", up.user.id, accB.id]) {
      const raw = await getWithCookie(`/account-info?accountId=${encodeURIComponent(id)}`, a.jar.cookieHeader());
      assertErrorBody(raw, 400, { message: "Account not found", code: "ACCOUNT_NOT_FOUND" }, `accountId=${id}`);
    }
  });

  test("query validation (before the session check) → 400 VALIDATION_ERROR", async () => {
    const a = newBrowser();
    await signUp(a);
    const [acc] = (await a.client.listAccounts()).data;
    const invalid = { message: "[query] Invalid input", code: "VALIDATION_ERROR" };
    assertErrorBody(await getWithCookie("/account-info", a.jar.cookieHeader()), 400, invalid, "no query");
    assertErrorBody(await getWithCookie("/account-info?useAccountCookie=true", a.jar.cookieHeader()), 400, invalid, "useAccountCookie=true");
    assertErrorBody(
      await getWithCookie(`/account-info?accountId=${acc.id}&foo=1`, a.jar.cookieHeader()),
      400,
      { message: '[query] Unrecognized key: "foo"', code: "VALIDATION_ERROR" },
      "extra key"
    );
    assertErrorBody(await anonymous("GET", "/account-info"), 400, invalid, "signed out, no query");
  });

  test("signed out with a valid query → 401 with an empty body", async () => {
    const res = await anonymous("GET", "/account-info?accountId=whatever");
    assert.equal(res.status, 401);
    assert.equal(res.text, "", "empty body");
    assert.equal(res.headers.getSetCookie().length, 0);
    const b = newBrowser();
    const { data, error } = await b.client.accountInfo({ query: { accountId: "whatever" } });
    assert.equal(data, null);
    assert.equal(error.status, 401);
    assert.equal(error.code, undefined);
  });
});

describe("set-password", () => {
  test("is server-only: 404 over HTTP, signed in or not", async () => {
    const a = newBrowser();
    const up = await signUp(a);
    const signedIn = await postJson(a.jar, "/set-password", { newPassword: NEW_PASSWORD });
    assert.equal(signedIn.status, 404);
    assert.equal(signedIn.text, "");
    const anon = await anonymous("POST", "/set-password", { newPassword: NEW_PASSWORD });
    assert.equal(anon.status, 404);
    const get = await getWithCookie("/set-password", a.jar.cookieHeader());
    assert.equal(get.status, 404);
    // the client's proxy builds a URL for it anyway
    const viaClient = await a.client.setPassword({ newPassword: NEW_PASSWORD });
    assert.equal(viaClient.data, null);
    assert.equal(viaClient.error?.status, 404);
    assert.equal((await tryPassword(up.email, NEW_PASSWORD)).status, 401, "password not changed");
    assert.equal((await tryPassword(up.email, PASSWORD)).status, 200);
  });
});
