// The admin plugin (`/admin/*`), driven through the official better-auth client
// (better-auth/client 1.7.7 with `adminClient()`) and raw requests, against the
// server at $GATEHOUSE_URL. Admins are made with `makeAdmin(email)` (helpers.mjs),
// which runs $ADMIN_GRANT_CMD with the email appended.
//
// What better-auth 1.7.7 answers (observed on the reference server, admin plugin
// with default options; see also dist/plugins/admin/routes.mjs):
//
//  * Order of checks on every route: body/query schema → session → permission →
//    route checks. So a bad body gets its 400 VALIDATION_ERROR even signed out.
//  * Signed out (no cookie, a tampered one, or a signed cookie of a dead session)
//    → 401 with an EMPTY body (no JSON), for every route incl. create-user,
//    has-permission and stop-impersonating; a dead session's cookie also gets
//    session_token / session_data / dont_remember expired (Max-Age=0).
//  * Cookie-bearing POSTs go through the origin check: untrusted Origin → 403
//    INVALID_ORIGIN, none → 403 MISSING_OR_NULL_ORIGIN, nothing changes.
//  * A plain user ("user" role) → 403 {message, code}:
//      create-user YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS "You are not allowed to create users"
//      list-users YOU_ARE_NOT_ALLOWED_TO_LIST_USERS, get-user YOU_ARE_NOT_ALLOWED_TO_GET_USER,
//      set-role YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE, update-user YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS,
//      ban-user / unban-user YOU_ARE_NOT_ALLOWED_TO_BAN_USERS,
//      impersonate-user YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS,
//      list-user-sessions YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS,
//      revoke-user-session(s) YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS,
//      remove-user YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS,
//      set-user-password YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD;
//    has-permission → 200 {"error":null,"success":false}; stop-impersonating →
//    400 {"message":"You are not impersonating anyone"} (no code).
//  * Roles are read from the user row on each request: a granted / changed role
//    counts on the user's next request and shows in their next get-session.
//  * An admin acting on ANOTHER admin: better-auth refuses only impersonation
//    (YOU_CANNOT_IMPERSONATE_ADMINS); every other route just does it. Gatehouse refuses
//    them all on purpose, 403 YOU_CANNOT_CHANGE_ADMINS_ROLE / YOU_CANNOT_UPDATE_ADMINS /
//    YOU_CANNOT_BAN_ADMINS (ban and unban) / YOU_CANNOT_REMOVE_ADMINS /
//    YOU_CANNOT_SET_ADMINS_PASSWORD / YOU_CANNOT_REVOKE_ADMINS_SESSIONS, unless the caller
//    is in ADMIN_USER_IDS; nothing changes. Both let an admin change themselves.
//  * Validation messages: a missing `userId` (z.coerce.string) →
//    "[body.userId] Invalid input: expected nonoptional, received undefined";
//    a number / null userId is coerced to a string ("5", "null"): not found.
//  * POST /admin/create-user {email, name, password?, role?: string|string[], data?: record}
//    → 200 {"user": <full user>}, no Set-Cookie (the admin's session is untouched).
//    email lower-cased; role default "user", array → comma-joined; `role` wins over
//    `data.role`; other `data` keys are stored if they are user fields (image,
//    emailVerified, banned, banReason, …) and unknown ones dropped. No password →
//    no credential account (sign-in → 401 INVALID_EMAIL_OR_PASSWORD). No minimum
//    password length (1 char accepted); > 128 → 400 PASSWORD_TOO_LONG. Errors:
//    existing email in any case → 400 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL
//    "User already exists. Use another email."; malformed email → 400 INVALID_EMAIL
//    "Invalid email"; role 5 → 400 VALIDATION_ERROR "[body.role] Invalid input";
//    data.role 5 → 400 INVALID_ROLE_TYPE "Invalid role type"; {} → "[body.email] Invalid
//    input: expected string, received undefined; [body.name] …"; no body →
//    "[body] Invalid input: expected object, received undefined".
//  * GET /admin/list-users → 200 {"users":[…], "total": <count matching search+filter>}
//    plus "limit"/"offset" keys only when Number(value) is non-zero and not NaN.
//    searchValue (empty = none) on searchField email|name (default email) with
//    searchOperator contains|starts_with|ends_with (default contains); filterValue on
//    filterField (default email) with filterOperator (default eq; ne, contains,
//    starts_with, ends_with, in with a repeated query key, …); both AND-ed.
//    sortBy <field> with sortDirection asc (default) | desc. limit/offset numbers or
//    numeric strings; an offset past the end → users [] with the real total.
//    Schema errors (400 VALIDATION_ERROR): searchField → "[query.searchField] Invalid
//    option: expected one of \"email\"|\"name\"", likewise searchOperator,
//    sortDirection and filterOperator (the full list of 11 operators).
//    Swallowed: limit=abc / offset=abc are ignored (NaN → no limit, no key);
//    limit=-1 → no limit but "limit":-1 echoed; limit=1.5, an unknown sortBy or an
//    unknown filterField make the query fail inside and answer 200
//    {"users":[],"total":0}. (Gatehouse answers 400 VALIDATION_ERROR to these on
//    purpose; the tests accept that.)
//  * GET /admin/get-user?id= → 200 the BARE user object; unknown or empty id →
//    404 {"message":"User not found","code":"USER_NOT_FOUND"}; no id → 400
//    "[query.id] Invalid input: expected string, received undefined".
//  * POST /admin/set-role {userId, role} → 200 {"user"}; an array is comma-joined
//    (["user","admin"] → "user,admin"); unknown user → 404 USER_NOT_FOUND; missing or
//    non-string role → 400 "[body.role] Invalid input". Any role name is accepted
//    (Gatehouse on purpose only known ones: YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE).
//  * POST /admin/update-user {userId, data} → 200 the BARE updated user. {} → 400
//    NO_DATA_TO_UPDATE "No data to update"; a `password` key (even next to others) →
//    400 PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER "Password cannot be updated through
//    update-user. Use the set-user-password endpoint instead"; role string/array
//    (joined), non-string role → 400 INVALID_ROLE_TYPE; email lower-cased, taken →
//    400 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL, malformed → 400 INVALID_EMAIL;
//    {banned:true} on yourself → 400 YOU_CANNOT_BAN_YOURSELF, on another user →
//    their sessions are deleted; unknown keys are dropped (200, nothing changes);
//    unknown user → 404; no data → "[body.data] Invalid input: expected record,
//    received undefined" ([] → "received array").
//  * POST /admin/ban-user {userId, banReason?, banExpiresIn? (seconds)} → 200 {"user"}
//    banned:true, banReason (missing or "" → "No reason"), banExpires = now +
//    banExpiresIn (missing or 0 → null). All the target's sessions are deleted at
//    once. Their sign-in then → 403 {"message":"You have been banned from this
//    application. Please contact support if you believe this is an error.",
//    "code":"BANNED_USER"} (a wrong password still → 401 INVALID_EMAIL_OR_PASSWORD);
//    impersonating them → the same 403. Yourself → 400 YOU_CANNOT_BAN_YOURSELF;
//    unknown → 404; banExpiresIn "10" → "[body.banExpiresIn] Invalid input: expected
//    number, received string"; banReason 5 → "[body.banReason] Invalid input:
//    expected string, received number". Once banExpires has passed, the next sign-in
//    succeeds and clears banned/banReason/banExpires (1.7.7's sign-in answer still
//    shows the old ban fields; not checked).
//  * POST /admin/unban-user {userId} → 200 {"user"} banned:false, banReason:null,
//    banExpires:null (also for a user who is not banned); unknown → 404.
//  * POST /admin/impersonate-user {userId} → 200 {"session": <new session,
//    impersonatedBy = admin id, expiresAt ≈ now + 1 h>, "user": <target>} and, in
//    this order, Set-Cookie:
//      session_token=; Max-Age=0 · session_data=; Max-Age=0 · dont_remember=; Max-Age=0 ·
//      admin_session=<signed "<admin token>:<'true' if the admin's login was
//        rememberMe:false, else ''>">; Max-Age=604800 ·
//      session_token=<signed new token> (no Max-Age) · dont_remember=<signed "true"> (no Max-Age)
//    (all Path=/; HttpOnly; SameSite=Lax). The admin's own session lives on. The
//    impersonation session is hidden from /list-sessions (the impersonating browser's
//    and the target's), but listed by /admin/list-user-sessions. While impersonating,
//    the browser is the target (admin routes → 403). Target is an admin (also the
//    caller itself) → 403 YOU_CANNOT_IMPERSONATE_ADMINS "You cannot impersonate
//    admins"; unknown → 404; a banned target → 403 BANNED_USER; no Set-Cookie on errors.
//  * POST /admin/stop-impersonating → 200 {"session": <the admin's original session>,
//    "user": <admin>}; the impersonation session is deleted; Set-Cookie:
//    session_token=<signed admin token> (Max-Age=604800; for a rememberMe:false admin
//    no Max-Age plus dont_remember=<signed "true">) and admin_session=; Max-Age=0.
//    1.7.7 does NOT expire the impersonation's dont_remember for a remember-me admin
//    (1.7.24 does; both accepted). Not impersonating → 400 {"message":"You are not
//    impersonating anyone"}; signed out → 401 empty; impersonating but the
//    admin_session cookie is missing / forged, or the admin's session is gone → 500
//    {"message":"Failed to find admin session"} and nothing changes.
//  * POST /admin/list-user-sessions {userId} → 200 {"sessions":[…every session row of
//    the user, impersonation ones included…]}; unknown user → {"sessions":[]}.
//  * POST /admin/revoke-user-session {sessionToken} → 200 {"success":true} (any user's
//    token; unknown token too); missing → "[body.sessionToken] Invalid input: expected
//    string, received undefined", 5 → "… received number".
//  * POST /admin/revoke-user-sessions {userId} → 200 {"success":true} (unknown too).
//  * POST /admin/remove-user {userId} → 200 {"success":true}; user, accounts and
//    sessions gone. Yourself → 400 YOU_CANNOT_REMOVE_YOURSELF "You cannot remove
//    yourself"; unknown → 404.
//  * POST /admin/set-user-password {userId, newPassword} → 200 {"status":true}
//    (creates the credential account if missing; the user's sessions live on —
//    Gatehouse ends them on purpose and mails the user, as it does for a new email
//    set through update-user).
//    Length checks first: < 8 → 400 PASSWORD_TOO_SHORT "Password too short" (even for
//    an unknown user), > 128 → 400 PASSWORD_TOO_LONG; unknown → 404; "" →
//    "[body.newPassword] newPassword cannot be empty", userId "" → "[body.userId]
//    userId cannot be empty".
//  * POST /admin/has-permission {permissions, userId?, role?} → 200 {"error":null,
//    "success":bool}. The caller's own role wins over `role` and `userId` whenever
//    there is a session. admin: every user/session action but user:impersonate-admins;
//    user: nothing; unknown resource/action, {} or empty action lists → false.
//    `permission` (singular) → 400 {"message":"invalid permission check. no
//    permission(s) were passed."} (no code; before the session check); both keys →
//    400 "[body] Invalid input: more than one option matched"; neither / non-array
//    actions → 400 "[body] Invalid input". Signed out → 401 empty even with userId
//    or role (the "user id or role is required" answer is for server calls only).
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { adminClient } from "better-auth/client/plugins";
import {
  AUTH_URL,
  BASE_URL,
  EXTRA_USER_KEYS,
  CookieJar,
  GATEHOUSE,
  PASSWORD,
  SIGNATURE_RE,
  TOKEN_RE,
  makeAdmin,
  newBrowser,
  parseSetCookie,
  splitSigned,
  uniqueEmail,
} from "./helpers.mjs";
import { latestMail } from "./mail.mjs";

const SECURE = new URL(BASE_URL).protocol === "https:";
const PREFIX = SECURE ? "__Secure-better-auth" : "better-auth";
const SESSION_COOKIE = `${PREFIX}.session_token`;
const SESSION_DATA_COOKIE = `${PREFIX}.session_data`;
const DONT_REMEMBER_COOKIE = `${PREFIX}.dont_remember`;
const ADMIN_SESSION_COOKIE = `${PREFIX}.admin_session`;
const NEW_PASSWORD = "Admin-Set-Password-7";
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const SLACK_MS = 2 * 60 * 1000;
const ID_RE = /^[A-Za-z0-9]{32}$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const BANNED = {
  message: "You have been banned from this application. Please contact support if you believe this is an error.",
  code: "BANNED_USER",
};
const NOT_FOUND = { message: "User not found", code: "USER_NOT_FOUND" };
const NOT_IMPERSONATING = { message: "You are not impersonating anyone" };
const INVALID_LOGIN = { message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" };
const USER_KEYS = [
  "banExpires", "banReason", "banned", "createdAt", "displayUsername", "email", "emailVerified",
  "id", "image", "name", "role", "updatedAt", "username", ...EXTRA_USER_KEYS,
].sort();
const SESSION_KEYS = [
  "activeOrganizationId", "activeTeamId", "createdAt", "expiresAt", "id", "impersonatedBy",
  "ipAddress", "token", "updatedAt", "userAgent", "userId",
];
const validation = (message) => ({ message, code: "VALIDATION_ERROR" });
const forbidden = (code, message) => ({ code, message });

// ---------------------------------------------------------------- helpers

function browser(opts = {}) {
  return newBrowser({ plugins: [adminClient()], ...opts });
}

/** A fresh browser signed up as a new user. */
async function newUser(prefix = "adm-user", extra = {}) {
  const b = browser();
  const email = uniqueEmail(prefix);
  const res = await b.client.signUp.email({ name: `Name ${prefix}`, email, password: PASSWORD, ...extra });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { ...b, email, id: res.data.user.id, token: res.data.token };
}

/** A fresh admin: signed up, then granted the role through ADMIN_GRANT_CMD. */
async function newAdmin(extra = {}) {
  const a = await newUser("adm-admin", extra);
  makeAdmin(a.email);
  return a;
}

/**
 * Raw request. `who` is a browser/user ({jar}) or null (no cookies, site Origin).
 * GET `body` is turned into a query string (arrays as repeated keys).
 */
async function call(who, method, path, body) {
  let url = `${AUTH_URL}${path}`;
  const init = { method, headers: {}, redirect: "manual" };
  if (method === "GET") {
    if (body !== undefined) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(body)) {
        for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
      }
      url += `?${qs}`;
    }
  } else if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  if (who) res = await who.jar.fetch(url, init);
  else res = await fetch(url, { ...init, headers: { ...init.headers, origin: new URL(BASE_URL).origin } });
  const text = await res.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, json, setCookies: res.headers.getSetCookie() };
}

function assertJsonAnswer(res, status, body, what) {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${what}: content-type`);
  assert.deepEqual(res.json, body, `${what}: exact body`);
}

/** An error answer with exactly `body` and no Set-Cookie. */
function assertError(res, status, body, what) {
  assertJsonAnswer(res, status, body, what);
  assert.deepEqual(res.setCookies, [], `${what}: no Set-Cookie`);
}

function assertEmpty401(res, what) {
  assert.equal(res.status, 401, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.text, "", `${what}: empty body`);
}

function cookiesNamed(setCookies, name) {
  return setCookies.map(parseSetCookie).filter((c) => c.name === name);
}

function assertExpired(c, what) {
  assert.ok(c, `${what}: Set-Cookie present`);
  assert.equal(c.value, "", `${what}: empty value (${c.raw})`);
  assert.equal(c.attributes["max-age"], "0", `${what}: Max-Age=0 (${c.raw})`);
  assert.equal(c.attributes.path, "/", c.raw);
  assert.equal(c.attributes.httponly, true, c.raw);
  assert.equal(c.attributes.samesite, "Lax", c.raw);
}

/** A live signed cookie carrying `value`; `maxAge` undefined = session-only. */
function assertSignedCookie(c, value, { maxAge }, what) {
  assert.ok(c, `${what}: Set-Cookie present`);
  const parts = splitSigned(c.value);
  assert.equal(parts.value, value, `${what}: value (${c.raw})`);
  assert.match(parts.signature, SIGNATURE_RE, `${what}: signature`);
  assert.equal(c.attributes["max-age"], maxAge === undefined ? undefined : String(maxAge), `${what}: Max-Age (${c.raw})`);
  assert.equal(c.attributes.expires, undefined, `${what}: no Expires`);
  assert.equal(c.attributes.path, "/", c.raw);
  assert.equal(c.attributes.httponly, true, c.raw);
  assert.equal(c.attributes.samesite, "Lax", c.raw);
  assert.equal(c.attributes.domain, undefined, c.raw);
}

function assertAboutMs(ms, offsetMs, what, slack = SLACK_MS) {
  const expected = Date.now() + offsetMs;
  assert.ok(Math.abs(ms - expected) < slack, `${what} = ${new Date(ms).toISOString()}, expected about ${new Date(expected).toISOString()}`);
}

/** A user object on the wire: every plugin column, ISO dates. */
function assertWireUser(u, expect, what) {
  assert.deepEqual(Object.keys(u).sort(), USER_KEYS, `${what}: user keys`);
  assert.match(u.id, ID_RE, `${what}: id`);
  assert.match(u.createdAt, ISO_RE, `${what}: createdAt`);
  assert.match(u.updatedAt, ISO_RE, `${what}: updatedAt`);
  for (const [k, v] of Object.entries(expect)) assert.deepEqual(u[k], v, `${what}: ${k}`);
}

function assertWireSession(s, expect, what) {
  assert.deepEqual(Object.keys(s).sort(), SESSION_KEYS, `${what}: session keys`);
  assert.match(s.id, ID_RE, `${what}: id`);
  assert.match(s.token, TOKEN_RE, `${what}: token`);
  for (const k of ["expiresAt", "createdAt", "updatedAt"]) assert.match(s[k], ISO_RE, `${what}: ${k}`);
  for (const [k, v] of Object.entries(expect)) assert.deepEqual(s[k], v, `${what}: ${k}`);
}

/** The user as the admin sees it (get-user), asserting it exists. */
async function fetchUser(admin, id) {
  const res = await call(admin, "GET", "/admin/get-user", { id });
  assert.equal(res.status, 200, `get-user ${id}: ${res.text}`);
  return res.json;
}

async function userGone(admin, id) {
  const res = await call(admin, "GET", "/admin/get-user", { id });
  assertError(res, 404, NOT_FOUND, `get-user ${id}`);
}

/** {session, user} of the browser's live session, or null (raw). */
async function sessionOf(who) {
  const res = await call(who, "GET", "/get-session");
  assert.equal(res.status, 200, res.text);
  return res.json;
}

async function assertSignedOut(who, what) {
  const res = await call(who, "GET", "/get-session");
  assert.equal(res.status, 200, `${what}: ${res.text}`);
  assert.equal(res.json, null, `${what}: get-session → null`);
}

/** A fresh browser's sign-in attempt (raw): status, body, Set-Cookie. */
async function trySignIn(email, password = PASSWORD) {
  const b = browser();
  const res = await call(b, "POST", "/sign-in/email", { email, password });
  return { ...res, browser: b };
}

async function sessionsOf(admin, userId) {
  const res = await call(admin, "POST", "/admin/list-user-sessions", { userId });
  assert.equal(res.status, 200, res.text);
  return res.json.sessions;
}

async function createUser(admin, body) {
  const res = await call(admin, "POST", "/admin/create-user", body);
  assert.equal(res.status, 200, `create-user: ${res.text}`);
  return res.json.user;
}

/** Tolerated alternative: Gatehouse refuses on purpose with a 400 VALIDATION_ERROR. */
function isGatehouseValidation(res) {
  return res.status === 400 && res.json?.code === "VALIDATION_ERROR" && typeof res.json.message === "string";
}

// ---------------------------------------------------------------- access control

/** Valid-looking calls of every admin route, aimed at `targetId`. */
function everyRoute(targetId, token = "no-such-token") {
  return [
    ["POST", "/admin/create-user", { email: uniqueEmail("adm-never"), name: "Never" }, "YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS", "You are not allowed to create users"],
    ["GET", "/admin/list-users", { limit: 5 }, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS", "You are not allowed to list users"],
    ["GET", "/admin/get-user", { id: targetId }, "YOU_ARE_NOT_ALLOWED_TO_GET_USER", "You are not allowed to get user"],
    ["POST", "/admin/set-role", { userId: targetId, role: "admin" }, "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE", "You are not allowed to change users role"],
    ["POST", "/admin/update-user", { userId: targetId, data: { name: "Hacked" } }, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS", "You are not allowed to update users"],
    ["POST", "/admin/ban-user", { userId: targetId, banReason: "x" }, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS", "You are not allowed to ban users"],
    ["POST", "/admin/unban-user", { userId: targetId }, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS", "You are not allowed to ban users"],
    ["POST", "/admin/impersonate-user", { userId: targetId }, "YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS", "You are not allowed to impersonate users"],
    ["POST", "/admin/list-user-sessions", { userId: targetId }, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS", "You are not allowed to list users sessions"],
    ["POST", "/admin/revoke-user-session", { sessionToken: token }, "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS", "You are not allowed to revoke users sessions"],
    ["POST", "/admin/revoke-user-sessions", { userId: targetId }, "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS", "You are not allowed to revoke users sessions"],
    ["POST", "/admin/remove-user", { userId: targetId }, "YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS", "You are not allowed to delete users"],
    ["POST", "/admin/set-user-password", { userId: targetId, newPassword: NEW_PASSWORD }, "YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD", "You are not allowed to set users password"],
  ];
}

/** The target is exactly as it was, its session alive, its password unchanged. */
async function assertUntouched(admin, target, beforeUser, what) {
  const now = await fetchUser(admin, target.id);
  assert.deepEqual(now, beforeUser, `${what}: target unchanged`);
  const s = await sessionOf(target);
  assert.equal(s?.session?.token, target.token, `${what}: target's session alive`);
  assert.equal(s.session.impersonatedBy, null);
  assert.equal((await trySignIn(target.email)).status, 200, `${what}: target's password unchanged`);
}

describe("admin routes: who may call them", () => {
  test("signed out: every admin route → 401 with an empty body, no Set-Cookie, nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    const routes = [
      ...everyRoute(target.id, target.token),
      ["POST", "/admin/stop-impersonating", undefined],
      ["POST", "/admin/has-permission", { permissions: { user: ["list"] } }],
      ["POST", "/admin/has-permission", { permissions: { user: ["list"] }, role: "admin" }],
      ["POST", "/admin/has-permission", { permissions: { user: ["list"] }, userId: admin.id }],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(null, method, path, body);
      assertEmpty401(res, `signed-out ${method} ${path} ${JSON.stringify(body)}`);
      assert.deepEqual(res.setCookies, [], `${path}: no Set-Cookie`);
    }
    // the client sees a 401 with no message
    const anon = browser();
    const lu = await anon.client.admin.listUsers({ query: {} });
    assert.equal(lu.data, null);
    assert.equal(lu.error?.status, 401);
    assert.equal(lu.error?.code, undefined);
    await assertUntouched(admin, target, beforeUser, "after signed-out calls");
    assert.equal((await call(admin, "GET", "/admin/list-users", { filterField: "email", filterValue: routes[0][2].email })).json.total, 0, "nobody created");
  });

  test("a tampered cookie → 401 empty; a signed-out session's cookie → 401 empty and the session cookies expired", async () => {
    const admin = await newAdmin();
    const tampered = { jar: new CookieJar(BASE_URL) };
    tampered.jar.set(SESSION_COOKIE, `${admin.token}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D`);
    const t = await call(tampered, "GET", "/admin/list-users");
    assertEmpty401(t, "tampered cookie");

    const dead = { jar: admin.jar.clone() };
    const out = await call(admin, "POST", "/sign-out", {});
    assert.equal(out.status, 200);
    for (const [method, path, body] of [
      ["GET", "/admin/list-users", undefined],
      ["POST", "/admin/ban-user", { userId: admin.id }],
      ["POST", "/admin/create-user", { email: uniqueEmail("adm-never"), name: "Never" }],
      ["POST", "/admin/has-permission", { permissions: { user: ["list"] } }],
      ["POST", "/admin/stop-impersonating", undefined],
    ]) {
      const j = { jar: dead.jar.clone() };
      const res = await call(j, method, path, body);
      assertEmpty401(res, `dead session ${path}`);
      for (const name of [SESSION_COOKIE, SESSION_DATA_COOKIE, DONT_REMEMBER_COOKIE]) {
        assertExpired(cookiesNamed(res.setCookies, name)[0], `${path}: ${name}`);
      }
    }
  });

  test("body and query schemas are checked before the session: signed out + bad input → 400 VALIDATION_ERROR", async () => {
    const cases = [
      ["POST", "/admin/create-user", {}, "[body.email] Invalid input: expected string, received undefined; [body.name] Invalid input: expected string, received undefined"],
      ["GET", "/admin/get-user", undefined, "[query.id] Invalid input: expected string, received undefined"],
      ["GET", "/admin/list-users", { searchField: "role" }, '[query.searchField] Invalid option: expected one of "email"|"name"'],
      ["POST", "/admin/set-role", {}, "[body.userId] Invalid input: expected nonoptional, received undefined; [body.role] Invalid input"],
      ["POST", "/admin/ban-user", { userId: "x", banExpiresIn: "10" }, "[body.banExpiresIn] Invalid input: expected number, received string"],
      ["POST", "/admin/revoke-user-session", {}, "[body.sessionToken] Invalid input: expected string, received undefined"],
      ["POST", "/admin/has-permission", {}, "[body] Invalid input"],
    ];
    for (const [method, path, body, message] of cases) {
      assertError(await call(null, method, path, body), 400, validation(message), `signed-out ${path} ${JSON.stringify(body)}`);
    }
    // has-permission's singular `permission` is refused before the session check too
    assertError(
      await call(null, "POST", "/admin/has-permission", { permission: { user: ["list"] } }),
      400,
      { message: "invalid permission check. no permission(s) were passed." },
      "signed-out has-permission {permission}"
    );
  });

  test("a plain user: every admin route → 403 with the route's code, nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const caller = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    for (const [method, path, body, code, message] of everyRoute(target.id, target.token)) {
      assertError(await call(caller, method, path, body), 403, forbidden(code, message), `plain user ${path}`);
    }
    // the same through the client
    const r = await caller.client.admin.banUser({ userId: target.id });
    assert.equal(r.data, null);
    assert.equal(r.error?.status, 403);
    assert.equal(r.error?.code, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS");
    // the caller may ask has-permission (false) and stop-impersonating (not impersonating)
    assertJsonAnswer(await call(caller, "POST", "/admin/has-permission", { permissions: { user: ["list"] } }), 200, { error: null, success: false }, "has-permission");
    assertError(await call(caller, "POST", "/admin/stop-impersonating"), 400, NOT_IMPERSONATING, "stop-impersonating");

    await assertUntouched(admin, target, beforeUser, "after the plain user's calls");
    assert.equal((await sessionOf(caller))?.session?.token, caller.token, "the caller keeps its session");
    assert.equal((await sessionOf(caller)).user.role, "user");
  });

  test("a cookie-bearing POST from an untrusted or missing Origin → 403 INVALID_ORIGIN / MISSING_OR_NULL_ORIGIN, nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    for (const [origin, body] of [
      ["https://evil.example", { message: "Invalid origin", code: "INVALID_ORIGIN" }],
      [null, { message: "Missing or null Origin", code: "MISSING_OR_NULL_ORIGIN" }],
    ]) {
      const headers = { "content-type": "application/json", cookie: admin.jar.cookieHeader() };
      if (origin) headers.origin = origin;
      const res = await fetch(`${AUTH_URL}/admin/ban-user`, { method: "POST", headers, body: JSON.stringify({ userId: target.id }) });
      const text = await res.text();
      assert.equal(res.status, 403, text);
      assert.deepEqual(JSON.parse(text), body);
    }
    await assertUntouched(admin, target, beforeUser, "after the cross-origin calls");
  });

  test("an admin on another admin: better-auth refuses impersonation only; Gatehouse every route, and nothing changes", async () => {
    const admin = await newAdmin();
    const peer = await newAdmin();
    const beforeUser = await fetchUser(admin, peer.id);
    // Each route that changes or acts as the peer, with Gatehouse's refusal.
    const routes = [
      ["/admin/set-role", { userId: peer.id, role: "admin" }, "YOU_CANNOT_CHANGE_ADMINS_ROLE", "You cannot change the role of an admin"],
      ["/admin/update-user", { userId: peer.id, data: { name: "Hacked" } }, "YOU_CANNOT_UPDATE_ADMINS", "You cannot update an admin"],
      ["/admin/update-user", { userId: peer.id, data: { email: uniqueEmail("adm-stolen") } }, "YOU_CANNOT_UPDATE_ADMINS", "You cannot update an admin"],
      ["/admin/unban-user", { userId: peer.id }, "YOU_CANNOT_BAN_ADMINS", "You cannot ban or unban an admin"],
      ["/admin/set-user-password", { userId: peer.id, newPassword: NEW_PASSWORD }, "YOU_CANNOT_SET_ADMINS_PASSWORD", "You cannot set the password of an admin"],
      ["/admin/revoke-user-session", { sessionToken: peer.token }, "YOU_CANNOT_REVOKE_ADMINS_SESSIONS", "You cannot revoke the sessions of an admin"],
      ["/admin/revoke-user-sessions", { userId: peer.id }, "YOU_CANNOT_REVOKE_ADMINS_SESSIONS", "You cannot revoke the sessions of an admin"],
      ["/admin/ban-user", { userId: peer.id }, "YOU_CANNOT_BAN_ADMINS", "You cannot ban or unban an admin"],
      ["/admin/remove-user", { userId: peer.id }, "YOU_CANNOT_REMOVE_ADMINS", "You cannot remove an admin"],
    ];
    if (!GATEHOUSE) {
      // better-auth: each goes through (the last, remove-user, deletes the peer).
      for (const [path, body] of routes) {
        assert.equal((await call(admin, "POST", path, body)).status, 200, path);
      }
      return;
    }
    for (const [path, body, code, message] of routes) {
      assertError(await call(admin, "POST", path, body), 403, forbidden(code, message), `${path} ${JSON.stringify(body)}`);
    }
    assertError(
      await call(admin, "POST", "/admin/impersonate-user", { userId: peer.id }),
      403, forbidden("YOU_CANNOT_IMPERSONATE_ADMINS", "You cannot impersonate admins"), "impersonate-user"
    );
    assert.deepEqual(await fetchUser(admin, peer.id), beforeUser, "the peer is untouched");
    assert.equal((await sessionOf(peer)).session.token, peer.token, "the peer keeps its session");
    assert.equal((await trySignIn(peer.email)).status, 200, "and its password");
  });

  test("roles count from the next request: granted admin can list users; set-role back to user → 403; visible in get-session", async () => {
    const admin = await newAdmin();
    const other = await newUser();
    const res = await admin.client.admin.listUsers({ query: { filterField: "id", filterValue: other.id } });
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.equal(res.data.total, 1);
    assert.equal(res.data.users[0].email, other.email);

    // promote `other`: its very next request is an admin's
    const up = await admin.client.admin.setRole({ userId: other.id, role: "admin" });
    assert.equal(up.error, null, JSON.stringify(up.error));
    assert.equal((await sessionOf(other)).user.role, "admin", "new role in the target's next get-session");
    assert.equal((await call(other, "GET", "/admin/list-users", { limit: 1 })).status, 200);
    // and demote it again: `other` steps down itself (Gatehouse lets no admin but a
    // super-admin demote another admin)
    const down = await other.client.admin.setRole({ userId: other.id, role: "user" });
    assert.equal(down.error, null, JSON.stringify(down.error));
    assert.equal((await sessionOf(other)).user.role, "user");
    assertError(
      await call(other, "GET", "/admin/list-users", { limit: 1 }),
      403,
      forbidden("YOU_ARE_NOT_ALLOWED_TO_LIST_USERS", "You are not allowed to list users"),
      "demoted"
    );
    // a multi-role string counts if any of its roles allows
    await admin.client.admin.setRole({ userId: other.id, role: ["user", "admin"] });
    assert.equal((await call(other, "GET", "/admin/list-users", { limit: 1 })).status, 200, "user,admin may list");
  });
});

// ---------------------------------------------------------------- create-user

describe("POST /admin/create-user", () => {
  test("email + name only: {user} with defaults, no credential account, no cookie, the admin's session untouched", async () => {
    const admin = await newAdmin();
    const email = uniqueEmail("adm-created");
    const res = await call(admin, "POST", "/admin/create-user", { email: email.toUpperCase(), name: "Created One" });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ["user"]);
    assertWireUser(res.json.user, {
      email, name: "Created One", emailVerified: false, image: null, role: "user", banned: false,
      banReason: null, banExpires: null, username: null, displayUsername: null,
    }, "created user");
    assert.deepEqual(res.setCookies, [], "no Set-Cookie");
    const s = await sessionOf(admin);
    assert.equal(s.session.token, admin.token, "admin still in its own session");
    assert.equal(s.user.id, admin.id);
    assert.deepEqual(await fetchUser(admin, res.json.user.id), res.json.user, "get-user shows the same user");
    // no password → no credential account
    const si = await trySignIn(email);
    assertError(si, 401, INVALID_LOGIN, "sign-in without a password set");
  });

  test("with password, role string and data: the user signs in with it; role and data stored", async () => {
    const admin = await newAdmin();
    const email = uniqueEmail("adm-created");
    const { data, error } = await admin.client.admin.createUser({
      email, name: "With Password", password: "Created-Pass-123", role: "admin",
      data: { image: "https://example.com/a.png", emailVerified: true, notAField: "dropped" },
    });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data.user.role, "admin");
    assert.equal(data.user.image, "https://example.com/a.png");
    assert.equal(data.user.emailVerified, true);
    assert.equal(data.user.notAField, undefined, "unknown data keys are dropped");
    assert.ok(data.user.createdAt instanceof Date, "the client turns dates into Dates");
    const si = await trySignIn(email, "Created-Pass-123");
    assert.equal(si.status, 200, si.text);
    assert.equal(si.json.user.id, data.user.id);
    assert.equal(si.json.user.role, "admin");
    // the new admin really is one
    assert.equal((await call(si.browser, "GET", "/admin/list-users", { limit: 1 })).status, 200);
  });

  test("role array → comma-joined; data.role is used when role is absent; role wins over data.role", async () => {
    const admin = await newAdmin();
    const u1 = await createUser(admin, { email: uniqueEmail("adm-created"), name: "R1", role: ["user", "admin"] });
    assert.equal(u1.role, "user,admin");
    const u2 = await createUser(admin, { email: uniqueEmail("adm-created"), name: "R2", data: { role: "admin" } });
    assert.equal(u2.role, "admin");
    const u3 = await createUser(admin, { email: uniqueEmail("adm-created"), name: "R3", role: "user", data: { role: "admin" } });
    assert.equal(u3.role, "user");
    assert.equal((await fetchUser(admin, u1.id)).role, "user,admin");
  });

  test("a role that is not defined: better-auth stores it; Gatehouse refuses it on purpose", async () => {
    const admin = await newAdmin();
    const email = uniqueEmail("adm-created");
    const res = await call(admin, "POST", "/admin/create-user", { email, name: "Custom", role: "support" });
    if (res.status === 200) {
      assert.equal(res.json.user.role, "support");
    } else {
      assertError(res, 400, { message: "You are not allowed to set a non-existent role value", code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" }, "undefined role");
      assert.equal((await call(admin, "GET", "/admin/list-users", { filterField: "email", filterValue: email })).json.total, 0);
    }
  });

  test("data may create a banned user: their sign-in → 403 BANNED_USER", async () => {
    const admin = await newAdmin();
    const email = uniqueEmail("adm-created");
    const u = await createUser(admin, { email, name: "Born Banned", password: PASSWORD, data: { banned: true, banReason: "preemptive" } });
    assert.equal(u.banned, true);
    assert.equal(u.banReason, "preemptive");
    assert.equal(u.banExpires, null);
    assertError(await trySignIn(email), 403, BANNED, "banned sign-in");
  });

  test("password length: no minimum (1 char accepted), more than 128 → 400 PASSWORD_TOO_LONG", async () => {
    const admin = await newAdmin();
    const short = await createUser(admin, { email: uniqueEmail("adm-created"), name: "Short", password: "a" });
    assert.equal(short.name, "Short");
    const email = uniqueEmail("adm-created");
    assertError(
      await call(admin, "POST", "/admin/create-user", { email, name: "Long", password: "a".repeat(129) }),
      400, { message: "Password too long", code: "PASSWORD_TOO_LONG" }, "129-char password"
    );
    assert.equal((await call(admin, "GET", "/admin/list-users", { filterField: "email", filterValue: email })).json.total, 0, "not created");
  });

  test("an existing email in any case → 400 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL; an invalid email → 400 INVALID_EMAIL; nothing created", async () => {
    const admin = await newAdmin();
    const existing = await newUser();
    assertError(
      await call(admin, "POST", "/admin/create-user", { email: existing.email.toUpperCase(), name: "Dup", password: PASSWORD }),
      400, { message: "User already exists. Use another email.", code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" }, "duplicate"
    );
    const list = await call(admin, "GET", "/admin/list-users", { filterField: "email", filterValue: existing.email });
    assert.equal(list.json.total, 1);
    assert.equal(list.json.users[0].name, "Name adm-user", "the existing user is untouched");
    assert.equal((await trySignIn(existing.email)).status, 200, "old password still works");

    const bad = `not-an-email-${existing.id}`;
    assertError(await call(admin, "POST", "/admin/create-user", { email: bad, name: "Bad" }), 400, { message: "Invalid email", code: "INVALID_EMAIL" }, "invalid email");
    assert.equal((await call(admin, "GET", "/admin/list-users", { searchValue: existing.id, searchField: "email" })).json.total, 0, "not created");
  });

  test("bad bodies → 400 VALIDATION_ERROR / INVALID_ROLE_TYPE", async () => {
    const admin = await newAdmin();
    const cases = [
      [{}, validation("[body.email] Invalid input: expected string, received undefined; [body.name] Invalid input: expected string, received undefined")],
      [{ email: uniqueEmail("adm-never") }, validation("[body.name] Invalid input: expected string, received undefined")],
      [{ email: uniqueEmail("adm-never"), name: "X", role: 5 }, validation("[body.role] Invalid input")],
      [{ email: uniqueEmail("adm-never"), name: "X", data: { role: 5 } }, { message: "Invalid role type", code: "INVALID_ROLE_TYPE" }],
      [undefined, validation("[body] Invalid input: expected object, received undefined")],
    ];
    for (const [body, answer] of cases) {
      assertError(await call(admin, "POST", "/admin/create-user", body), 400, answer, `create-user ${JSON.stringify(body)}`);
      if (body?.email) {
        assert.equal((await call(admin, "GET", "/admin/list-users", { filterField: "email", filterValue: body.email })).json.total, 0, "not created");
      }
    }
  });
});

// ---------------------------------------------------------------- list-users

describe("GET /admin/list-users", () => {
  let admin;
  let tag;
  let alpha;
  let beta;
  let gamma;
  before(async () => {
    admin = await newAdmin();
    tag = `lu${admin.id.slice(0, 10).toLowerCase()}`;
    alpha = await createUser(admin, { email: `${tag}-a@example.com`, name: `${tag} Alpha` });
    beta = await createUser(admin, { email: `${tag}-b@example.org`, name: `${tag} Beta` });
    gamma = await createUser(admin, { email: `zz-${tag}-c@example.com`, name: `Gamma ${tag}` });
  });
  const list = (query) => call(admin, "GET", "/admin/list-users", query);
  const names = (res) => res.json.users.map((u) => u.name);
  const sorted = (res) => names(res).sort();

  test("shape: {users, total}, full user objects, no limit/offset keys unless given", async () => {
    const res = await list({ searchValue: tag });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json).sort(), ["total", "users"]);
    assert.equal(res.json.total, 3);
    assert.deepEqual(sorted(res), [`${tag} Alpha`, `${tag} Beta`, `Gamma ${tag}`].sort());
    const a = res.json.users.find((u) => u.id === alpha.id);
    assert.deepEqual(a, alpha, "same object as create-user returned");
    assertWireUser(a, { role: "user", banned: false }, "listed user");
    assert.deepEqual(res.setCookies, []);
    // through the client (numbers for limit/offset)
    const c = await admin.client.admin.listUsers({ query: { searchValue: tag, limit: 10, offset: 0 } });
    assert.equal(c.error, null);
    assert.equal(c.data.total, 3);
    assert.equal(c.data.limit, 10);
    assert.equal(c.data.offset, undefined, "offset 0 is not echoed");
    assert.ok(c.data.users[0].createdAt instanceof Date);
  });

  test("searchField / searchOperator: contains (default, on email), starts_with, ends_with on name and email", async () => {
    assert.deepEqual(sorted(await list({ searchValue: `${tag}-` })), [`${tag} Alpha`, `${tag} Beta`, `Gamma ${tag}`].sort(), "email contains");
    assert.deepEqual(sorted(await list({ searchValue: tag, searchField: "email", searchOperator: "starts_with" })), [`${tag} Alpha`, `${tag} Beta`].sort());
    assert.deepEqual(sorted(await list({ searchValue: tag, searchField: "name", searchOperator: "starts_with" })), [`${tag} Alpha`, `${tag} Beta`].sort());
    assert.deepEqual(sorted(await list({ searchValue: tag, searchField: "name", searchOperator: "ends_with" })), [`Gamma ${tag}`].sort());
    assert.deepEqual(sorted(await list({ searchValue: "Beta", searchField: "name", searchOperator: "ends_with", filterField: "name", filterValue: tag, filterOperator: "contains" })), [`${tag} Beta`].sort());
    const r = await list({ searchValue: `${tag} Alpha`, searchField: "name" });
    assert.deepEqual(names(r), [`${tag} Alpha`]);
    assert.equal(r.json.total, 1);
    const none = await list({ searchValue: `${tag}-nobody` });
    assert.deepEqual(none.json, { users: [], total: 0 });
  });

  test("filterField / filterValue / filterOperator: eq (default, on email), ne, contains, starts_with, ends_with, in", async () => {
    assert.deepEqual(names(await list({ filterValue: alpha.email })), [`${tag} Alpha`], "default field email, default op eq");
    assert.deepEqual(names(await list({ filterField: "id", filterValue: beta.id })), [`${tag} Beta`]);
    assert.deepEqual(names(await list({ filterField: "name", filterValue: `Gamma ${tag}`, filterOperator: "eq" })), [`Gamma ${tag}`]);
    const ne = await list({ searchValue: tag, filterField: "email", filterValue: alpha.email, filterOperator: "ne" });
    assert.deepEqual(ne.json.users.map((u) => u.id).sort(), [beta.id, gamma.id].sort(), "search AND filter");
    assert.equal(ne.json.total, 2);
    assert.deepEqual(sorted(await list({ filterField: "name", filterValue: tag, filterOperator: "contains" })), [`${tag} Alpha`, `${tag} Beta`, `Gamma ${tag}`].sort());
    assert.deepEqual(sorted(await list({ filterField: "name", filterValue: tag, filterOperator: "starts_with" })), [`${tag} Alpha`, `${tag} Beta`].sort());
    assert.deepEqual(sorted(await list({ filterField: "email", filterValue: ".org", filterOperator: "ends_with", searchValue: tag })), [`${tag} Beta`].sort());
    const inList = await list({ filterField: "email", filterValue: [alpha.email, gamma.email], filterOperator: "in" });
    assert.deepEqual(sorted(inList), [`${tag} Alpha`, `Gamma ${tag}`].sort(), "in with a repeated query key");
    assert.equal(inList.json.total, 2);
    assert.deepEqual(sorted(await list({ searchValue: tag, filterField: "role", filterValue: "user" })), [`${tag} Alpha`, `${tag} Beta`, `Gamma ${tag}`].sort());
  });

  test("sortBy / sortDirection (asc by default)", async () => {
    assert.deepEqual(names(await list({ searchValue: tag, sortBy: "name" })), [`Gamma ${tag}`, `${tag} Alpha`, `${tag} Beta`]);
    assert.deepEqual(names(await list({ searchValue: tag, sortBy: "name", sortDirection: "asc" })), [`Gamma ${tag}`, `${tag} Alpha`, `${tag} Beta`]);
    assert.deepEqual(names(await list({ searchValue: tag, sortBy: "name", sortDirection: "desc" })), [`${tag} Beta`, `${tag} Alpha`, `Gamma ${tag}`]);
    assert.deepEqual(names(await list({ searchValue: tag, sortBy: "email", sortDirection: "desc" })), [`Gamma ${tag}`, `${tag} Beta`, `${tag} Alpha`]);
  });

  test("limit / offset as numeric strings: a page of the sorted list, total unchanged, both echoed as numbers", async () => {
    const p1 = await list({ searchValue: tag, sortBy: "name", limit: "2" });
    assert.deepEqual(p1.json, { users: p1.json.users, total: 3, limit: 2 });
    assert.deepEqual(names(p1), [`Gamma ${tag}`, `${tag} Alpha`]);
    const p2 = await list({ searchValue: tag, sortBy: "name", limit: "2", offset: "2" });
    assert.deepEqual(names(p2), [`${tag} Beta`]);
    assert.equal(p2.json.total, 3);
    assert.equal(p2.json.limit, 2);
    assert.equal(p2.json.offset, 2);
    const mid = await list({ searchValue: tag, sortBy: "name", limit: "1", offset: "1" });
    assert.deepEqual(names(mid), [`${tag} Alpha`]);
    const past = await list({ searchValue: tag, offset: "10" });
    assert.deepEqual(past.json, { users: [], total: 3, offset: 10 });
    const zero = await list({ searchValue: tag, limit: "0", offset: "0" });
    assert.deepEqual(Object.keys(zero.json).sort(), ["total", "users"], "0 means none and is not echoed");
    assert.equal(zero.json.users.length, 3);
    // the client sends numbers the same way
    const c = await admin.client.admin.listUsers({ query: { searchValue: tag, sortBy: "name", limit: 1, offset: 2 } });
    assert.deepEqual(c.data.users.map((u) => u.name), [`${tag} Beta`]);
    assert.equal(c.data.limit, 1);
    assert.equal(c.data.offset, 2);
    assert.equal(c.data.total, 3);
  });

  test("odd limit / offset / field values: better-auth ignores or swallows them (Gatehouse: 400 VALIDATION_ERROR)", async () => {
    const all = [`${tag} Alpha`, `${tag} Beta`, `Gamma ${tag}`].sort();
    const cases = [
      // [query, check of better-auth's answer]
      [{ searchValue: tag, limit: "abc" }, (r) => { assert.deepEqual(Object.keys(r.json).sort(), ["total", "users"]); assert.deepEqual(sorted(r), all); }],
      [{ searchValue: tag, offset: "abc" }, (r) => { assert.deepEqual(Object.keys(r.json).sort(), ["total", "users"]); assert.deepEqual(sorted(r), all); }],
      [{ searchValue: tag, limit: "-1" }, (r) => { assert.equal(r.json.limit, -1); assert.equal(r.json.total, 3); assert.deepEqual(sorted(r), all); }],
      [{ searchValue: tag, limit: "1.5" }, (r) => assert.deepEqual(r.json, { users: [], total: 0 })],
      [{ searchValue: tag, sortBy: "noSuchField" }, (r) => assert.deepEqual(r.json, { users: [], total: 0 })],
      [{ filterField: "noSuchField", filterValue: "x" }, (r) => assert.deepEqual(r.json, { users: [], total: 0 })],
    ];
    for (const [query, check] of cases) {
      const r = await list(query);
      if (r.status === 200) check(r);
      else assert.ok(isGatehouseValidation(r), `${JSON.stringify(query)}: ${r.status} ${r.text}`);
    }
  });

  test("enum query values out of range → 400 VALIDATION_ERROR with the allowed values", async () => {
    const cases = [
      [{ searchValue: tag, searchField: "role" }, '[query.searchField] Invalid option: expected one of "email"|"name"'],
      [{ searchValue: tag, searchOperator: "eq" }, '[query.searchOperator] Invalid option: expected one of "contains"|"starts_with"|"ends_with"'],
      [{ searchValue: tag, sortBy: "name", sortDirection: "up" }, '[query.sortDirection] Invalid option: expected one of "asc"|"desc"'],
      [{ filterValue: "x", filterOperator: "like" }, '[query.filterOperator] Invalid option: expected one of "eq"|"ne"|"lt"|"lte"|"gt"|"gte"|"in"|"not_in"|"contains"|"starts_with"|"ends_with"'],
    ];
    for (const [query, message] of cases) {
      assertError(await list(query), 400, validation(message), JSON.stringify(query));
    }
  });
});

// ---------------------------------------------------------------- get-user

describe("GET /admin/get-user", () => {
  test("the bare user object; unknown or empty id → 404 USER_NOT_FOUND; no id → 400", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const res = await call(admin, "GET", "/admin/get-user", { id: target.id });
    assert.equal(res.status, 200, res.text);
    assertWireUser(res.json, { id: target.id, email: target.email, name: "Name adm-user", role: "user", banned: false, banReason: null, banExpires: null }, "get-user");
    assert.deepEqual(res.setCookies, []);
    const c = await admin.client.admin.getUser({ query: { id: target.id } });
    assert.equal(c.error, null);
    assert.equal(c.data.id, target.id);
    assert.ok(c.data.createdAt instanceof Date);

    assertError(await call(admin, "GET", "/admin/get-user", { id: "no-such-user" }), 404, NOT_FOUND, "unknown id");
    assertError(await call(admin, "GET", "/admin/get-user", { id: "" }), 404, NOT_FOUND, "empty id");
    assertError(await call(admin, "GET", "/admin/get-user"), 400, validation("[query.id] Invalid input: expected string, received undefined"), "no id");
  });
});

// ---------------------------------------------------------------- set-role

describe("POST /admin/set-role", () => {
  test("a string, then an array (comma-joined): {user}, and the target's next get-session shows it", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    // (the string first: once the target is an admin, Gatehouse lets only a super-admin change it)
    const r1 = await call(admin, "POST", "/admin/set-role", { userId: target.id, role: "user" });
    assert.equal(r1.status, 200, r1.text);
    assert.deepEqual(Object.keys(r1.json), ["user"]);
    assertWireUser(r1.json.user, { id: target.id, role: "user" }, "set-role");
    assert.deepEqual(r1.setCookies, []);
    assert.equal((await sessionOf(target)).user.role, "user");

    const r2 = await admin.client.admin.setRole({ userId: target.id, role: ["user", "admin"] });
    assert.equal(r2.error, null);
    assert.equal(r2.data.user.role, "user,admin");
    const s = await sessionOf(target);
    assert.equal(s.user.role, "user,admin");
    assert.equal(s.session.token, target.token, "the target's session lives on");
    assert.equal((await fetchUser(admin, target.id)).role, "user,admin");
  });

  test("an undefined role name: better-auth stores it; Gatehouse refuses it on purpose", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const res = await call(admin, "POST", "/admin/set-role", { userId: target.id, role: "moderator" });
    if (res.status === 200) {
      assert.equal(res.json.user.role, "moderator");
    } else {
      assertError(res, 400, { message: "You are not allowed to set a non-existent role value", code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" }, "undefined role");
      assert.equal((await fetchUser(admin, target.id)).role, "user");
    }
  });

  test("bad input → exact errors, nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    const cases = [
      [{ userId: "no-such-user", role: "admin" }, 404, NOT_FOUND],
      [{ userId: 12345, role: "admin" }, 404, NOT_FOUND],
      [{ userId: target.id }, 400, validation("[body.role] Invalid input")],
      [{ userId: target.id, role: 5 }, 400, validation("[body.role] Invalid input")],
      [{ role: "admin" }, 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined")],
    ];
    for (const [body, status, answer] of cases) {
      assertError(await call(admin, "POST", "/admin/set-role", body), status, answer, `set-role ${JSON.stringify(body)}`);
    }
    assert.deepEqual(await fetchUser(admin, target.id), beforeUser, "target unchanged");
  });
});

// ---------------------------------------------------------------- update-user

describe("POST /admin/update-user", () => {
  test("data → the bare updated user; visible in get-user and the target's session", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const res = await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { name: "Renamed By Admin", image: "https://example.com/i.png", emailVerified: true } });
    assert.equal(res.status, 200, res.text);
    assertWireUser(res.json, { id: target.id, name: "Renamed By Admin", image: "https://example.com/i.png", emailVerified: true, role: "user" }, "update-user");
    assert.deepEqual(res.setCookies, []);
    assert.deepEqual(await fetchUser(admin, target.id), res.json);
    const s = await sessionOf(target);
    assert.equal(s.user.name, "Renamed By Admin");
    assert.equal(s.session.token, target.token);
    const c = await admin.client.admin.updateUser({ userId: target.id, data: { name: "Via Client" } });
    assert.equal(c.error, null);
    assert.equal(c.data.name, "Via Client");
  });

  test("role in data: string or array (comma-joined); not a string → 400 INVALID_ROLE_TYPE", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const r1 = await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { role: "user" } });
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.json.role, "user");
    assertError(await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { role: 5 } }), 400, { message: "Invalid role type", code: "INVALID_ROLE_TYPE" }, "role 5");
    assert.equal((await fetchUser(admin, target.id)).role, "user", "unchanged");
    // (the array last: once the target is an admin, Gatehouse lets only a super-admin change it)
    const r2 = await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { role: ["user", "admin"] } });
    assert.equal(r2.json.role, "user,admin");
    assert.equal((await sessionOf(target)).user.role, "user,admin");
  });

  test("email: stored lower-case; taken → 400 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL; malformed → 400 INVALID_EMAIL", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const other = await newUser();
    const fresh = uniqueEmail("adm-moved");
    const before = Date.now();
    const r = await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { email: fresh.toUpperCase() } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.email, fresh);
    assert.equal((await trySignIn(fresh)).status, 200, "signs in with the new email");
    if (GATEHOUSE) {
      // On purpose: the target is signed out, and the old address hears of it.
      await assertSignedOut(target, "the target's session");
      const mail = await latestMail(target.email, { after: before, timeoutMs: 10000 });
      assert.equal(mail?.kind, "email-changed-by-admin", JSON.stringify(mail));
      assert.ok(mail.text.includes(fresh), "names the new address");
    } else {
      assert.equal((await sessionOf(target)).session.token, target.token, "the target's session lives on");
    }
    assertError(
      await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { email: other.email.toUpperCase() } }),
      400, { message: "User already exists. Use another email.", code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" }, "taken email"
    );
    assertError(await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { email: "nope" } }), 400, { message: "Invalid email", code: "INVALID_EMAIL" }, "bad email");
    assert.equal((await fetchUser(admin, target.id)).email, fresh, "unchanged");
  });

  test("empty data → NO_DATA_TO_UPDATE; password → PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER; other bad input; nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    const PW = {
      message: "Password cannot be updated through update-user. Use the set-user-password endpoint instead",
      code: "PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER",
    };
    const cases = [
      [{ userId: target.id, data: {} }, 400, { message: "No data to update", code: "NO_DATA_TO_UPDATE" }],
      [{ userId: target.id, data: { password: NEW_PASSWORD } }, 400, PW],
      [{ userId: target.id, data: { name: "Sneaky", password: NEW_PASSWORD } }, 400, PW],
      [{ userId: "no-such-user", data: { name: "Ghost" } }, 404, NOT_FOUND],
      [{ userId: target.id }, 400, validation("[body.data] Invalid input: expected record, received undefined")],
      [{ userId: target.id, data: [] }, 400, validation("[body.data] Invalid input: expected record, received array")],
      [{ data: { name: "X" } }, 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined")],
    ];
    for (const [body, status, answer] of cases) {
      assertError(await call(admin, "POST", "/admin/update-user", body), status, answer, `update-user ${JSON.stringify(body)}`);
    }
    // the client's updateUser({userId, data: {}}) is a POST too
    const c = await admin.client.admin.updateUser({ userId: target.id, data: {} });
    assert.equal(c.error?.status, 400);
    assert.equal(c.error?.code, "NO_DATA_TO_UPDATE");
    await assertUntouched(admin, target, beforeUser, "after the refused updates");
  });

  test("unknown data keys are dropped: 200 and the user is unchanged", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    const r = await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { notAField: "x" } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.notAField, undefined);
    const { updatedAt: _a, ...rest } = r.json;
    const { updatedAt: _b, ...restBefore } = beforeUser;
    assert.deepEqual(rest, restBefore);
  });

  test("banned:true: yourself → 400 YOU_CANNOT_BAN_YOURSELF; another user → banned and their sessions gone", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    assertError(
      await call(admin, "POST", "/admin/update-user", { userId: admin.id, data: { banned: true } }),
      400, { message: "You cannot ban yourself", code: "YOU_CANNOT_BAN_YOURSELF" }, "ban yourself"
    );
    assert.equal((await fetchUser(admin, admin.id)).banned, false);
    assert.equal((await sessionOf(admin)).session.token, admin.token, "admin keeps its session");

    const r = await call(admin, "POST", "/admin/update-user", { userId: target.id, data: { banned: true, banReason: "via update" } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.banned, true);
    assert.equal(r.json.banReason, "via update");
    assert.equal(r.json.banExpires, null);
    assert.deepEqual(await sessionsOf(admin, target.id), [], "sessions deleted");
    await assertSignedOut(target, "banned target");
    assertError(await trySignIn(target.email), 403, BANNED, "banned sign-in");
  });
});

// ---------------------------------------------------------------- ban / unban

describe("POST /admin/ban-user and /admin/unban-user", () => {
  test("ban with reason and expiry: {user}; the target's sessions die at once; sign-in → 403 BANNED_USER", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const second = browser();
    assert.equal((await call(second, "POST", "/sign-in/email", { email: target.email, password: PASSWORD })).status, 200);
    assert.equal((await sessionsOf(admin, target.id)).length, 2);

    const res = await call(admin, "POST", "/admin/ban-user", { userId: target.id, banReason: "spamming", banExpiresIn: 3600 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ["user"]);
    assertWireUser(res.json.user, { id: target.id, banned: true, banReason: "spamming" }, "ban-user");
    assertAboutMs(Date.parse(res.json.user.banExpires), HOUR_MS, "banExpires");
    assert.deepEqual(res.setCookies, [], "no Set-Cookie for the admin");
    assert.equal((await sessionOf(admin)).session.token, admin.token);

    assert.deepEqual(await sessionsOf(admin, target.id), [], "every session deleted");
    const gs = await call(target, "GET", "/get-session");
    assert.equal(gs.status, 200);
    assert.equal(gs.json, null, "the target's next get-session → null");
    for (const name of [SESSION_COOKIE, SESSION_DATA_COOKIE, DONT_REMEMBER_COOKIE]) {
      assertExpired(cookiesNamed(gs.setCookies, name)[0], `target's ${name}`);
    }
    await assertSignedOut(second, "second browser");

    const si = await trySignIn(target.email);
    assertError(si, 403, BANNED, "banned sign-in");
    assertError(await trySignIn(target.email, "Wrong-Password-000"), 401, INVALID_LOGIN, "banned + wrong password");
    const c = await browser().client.signIn.email({ email: target.email, password: PASSWORD });
    assert.equal(c.data, null);
    assert.equal(c.error.status, 403);
    assert.equal(c.error.code, "BANNED_USER");
    assert.equal(c.error.message, BANNED.message);
    assert.deepEqual(await sessionsOf(admin, target.id), [], "no session was created");
  });

  test("defaults: no reason / empty reason → \"No reason\"; no expiry or banExpiresIn 0 → banExpires null", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    for (const body of [{}, { banReason: "" }, { banExpiresIn: 0 }]) {
      const r = await admin.client.admin.banUser({ userId: target.id, ...body });
      assert.equal(r.error, null, JSON.stringify(r.error));
      assert.equal(r.data.user.banned, true);
      assert.equal(r.data.user.banReason, "No reason", JSON.stringify(body));
      assert.equal(r.data.user.banExpires, null, JSON.stringify(body));
    }
    assertError(await trySignIn(target.email), 403, BANNED, "permanent ban");
  });

  test("unban: {user} with the ban fields cleared; the user signs in again", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    await admin.client.admin.banUser({ userId: target.id, banReason: "temp", banExpiresIn: 600 });
    const res = await call(admin, "POST", "/admin/unban-user", { userId: target.id });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ["user"]);
    assertWireUser(res.json.user, { id: target.id, banned: false, banReason: null, banExpires: null }, "unban-user");
    const si = await trySignIn(target.email);
    assert.equal(si.status, 200, si.text);
    assert.equal(si.json.user.banned, false);
    // unbanning someone who is not banned is fine too
    const again = await admin.client.admin.unbanUser({ userId: target.id });
    assert.equal(again.error, null);
    assert.equal(again.data.user.banned, false);
  });

  test("an expired ban is lifted by the next sign-in, which clears the ban fields", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const r = await admin.client.admin.banUser({ userId: target.id, banExpiresIn: 1 });
    assert.equal(r.error, null);
    assertAboutMs(r.data.user.banExpires.getTime(), 1000, "banExpires", 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const stillMarked = await fetchUser(admin, target.id);
    assert.equal(stillMarked.banned, true, "nothing lifts the ban before a sign-in");
    const si = await trySignIn(target.email);
    assert.equal(si.status, 200, si.text);
    assert.match(si.json.token, TOKEN_RE);
    assert.ok(cookiesNamed(si.setCookies, SESSION_COOKIE).length === 1, "session cookie set");
    const after = await fetchUser(admin, target.id);
    assert.equal(after.banned, false);
    assert.equal(after.banReason, null);
    assert.equal(after.banExpires, null);
    assert.equal((await sessionOf(si.browser)).user.banned, false);
  });

  test("bad input → exact errors, nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const beforeUser = await fetchUser(admin, target.id);
    const cases = [
      ["/admin/ban-user", { userId: admin.id }, 400, { message: "You cannot ban yourself", code: "YOU_CANNOT_BAN_YOURSELF" }],
      ["/admin/ban-user", { userId: "no-such-user" }, 404, NOT_FOUND],
      ["/admin/ban-user", { userId: target.id, banExpiresIn: "10" }, 400, validation("[body.banExpiresIn] Invalid input: expected number, received string")],
      ["/admin/ban-user", { userId: target.id, banReason: 5 }, 400, validation("[body.banReason] Invalid input: expected string, received number")],
      ["/admin/ban-user", {}, 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined")],
      ["/admin/unban-user", { userId: "no-such-user" }, 404, NOT_FOUND],
      ["/admin/unban-user", {}, 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined")],
    ];
    for (const [path, body, status, answer] of cases) {
      assertError(await call(admin, "POST", path, body), status, answer, `${path} ${JSON.stringify(body)}`);
    }
    await assertUntouched(admin, target, beforeUser, "after the refused bans");
    const me = await sessionOf(admin);
    assert.equal(me.session.token, admin.token, "the admin keeps its session");
    assert.equal(me.user.banned, false);
  });
});

// ---------------------------------------------------------------- impersonation

/** Check impersonate-user's Set-Cookie list; returns the new token. */
function assertImpersonationCookies(setCookies, { adminToken, adminDontRemember }) {
  const parsed = setCookies.map(parseSetCookie);
  assert.deepEqual(
    parsed.map((c) => c.name).sort(),
    [ADMIN_SESSION_COOKIE, DONT_REMEMBER_COOKIE, DONT_REMEMBER_COOKIE, SESSION_DATA_COOKIE, SESSION_COOKIE, SESSION_COOKIE].sort(),
    `exactly these Set-Cookies: ${setCookies.join(" | ")}`
  );
  const [tokenExpired, tokenSet] = cookiesNamed(setCookies, SESSION_COOKIE);
  const [drExpired, drSet] = cookiesNamed(setCookies, DONT_REMEMBER_COOKIE);
  assertExpired(tokenExpired, "first session_token (the admin's, expired)");
  assertExpired(cookiesNamed(setCookies, SESSION_DATA_COOKIE)[0], "session_data");
  assertExpired(drExpired, "first dont_remember (expired)");
  assertSignedCookie(cookiesNamed(setCookies, ADMIN_SESSION_COOKIE)[0], `${adminToken}:${adminDontRemember ? "true" : ""}`, { maxAge: 604800 }, "admin_session");
  const newToken = splitSigned(tokenSet.value).value;
  assert.match(newToken, TOKEN_RE);
  assertSignedCookie(tokenSet, newToken, { maxAge: undefined }, "new session_token (session-only)");
  assertSignedCookie(drSet, "true", { maxAge: undefined }, "dont_remember=true");
  return newToken;
}

describe("POST /admin/impersonate-user and /admin/stop-impersonating", () => {
  test("impersonate: {session, user}, the exact cookies, a 1-hour session with impersonatedBy; stop restores the admin", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const res = await call(admin, "POST", "/admin/impersonate-user", { userId: target.id });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json).sort(), ["session", "user"]);
    assertWireSession(res.json.session, { userId: target.id, impersonatedBy: admin.id }, "impersonation session");
    assertAboutMs(Date.parse(res.json.session.expiresAt), HOUR_MS, "impersonation expiresAt");
    assertWireUser(res.json.user, { id: target.id, email: target.email, role: "user" }, "impersonated user");
    const newToken = assertImpersonationCookies(res.setCookies, { adminToken: admin.token, adminDontRemember: false });
    assert.equal(newToken, res.json.session.token, "the cookie carries the new session's token");
    assert.notEqual(newToken, target.token);

    // the browser is now the target
    const s = await call(admin, "GET", "/get-session");
    assert.equal(s.json.session.token, newToken);
    assert.equal(s.json.session.impersonatedBy, admin.id);
    assert.equal(s.json.user.id, target.id);
    assert.deepEqual(s.setCookies, [], "get-session does not re-issue the impersonation cookie");
    // …with the target's rights
    assertError(
      await call(admin, "GET", "/admin/list-users", { limit: 1 }),
      403, forbidden("YOU_ARE_NOT_ALLOWED_TO_LIST_USERS", "You are not allowed to list users"), "admin routes while impersonating"
    );
    // the target's own session is untouched
    assert.equal((await sessionOf(target)).session.token, target.token);

    // stop: back to the admin's original session
    const stop = await call(admin, "POST", "/admin/stop-impersonating");
    assert.equal(stop.status, 200, stop.text);
    assert.deepEqual(Object.keys(stop.json).sort(), ["session", "user"]);
    assertWireSession(stop.json.session, { token: admin.token, userId: admin.id, impersonatedBy: null }, "restored session");
    assertAboutMs(Date.parse(stop.json.session.expiresAt), 7 * DAY_MS, "restored expiresAt");
    assertWireUser(stop.json.user, { id: admin.id, email: admin.email, role: "admin" }, "restored user");
    const names = stop.setCookies.map((c) => parseSetCookie(c).name);
    assert.deepEqual(
      names.filter((n) => n !== DONT_REMEMBER_COOKIE).sort(),
      [ADMIN_SESSION_COOKIE, SESSION_COOKIE].sort(),
      `stop-impersonating Set-Cookies: ${stop.setCookies.join(" | ")}`
    );
    assertSignedCookie(cookiesNamed(stop.setCookies, SESSION_COOKIE)[0], admin.token, { maxAge: 604800 }, "restored session_token");
    assertExpired(cookiesNamed(stop.setCookies, ADMIN_SESSION_COOKIE)[0], "admin_session");
    // 1.7.7 leaves the impersonation's dont_remember in place; 1.7.24 expires it
    const dr = cookiesNamed(stop.setCookies, DONT_REMEMBER_COOKIE);
    assert.ok(dr.length === 0 || (dr.length === 1 && dr[0].attributes["max-age"] === "0"), `dont_remember: ${dr.map((c) => c.raw)}`);

    const back = await sessionOf(admin);
    assert.equal(back.session.token, admin.token);
    assert.equal(back.user.id, admin.id);
    assert.equal((await call(admin, "GET", "/admin/list-users", { limit: 1 })).status, 200, "admin rights are back");
    // the impersonation session is gone
    const rows = await sessionsOf(admin, target.id);
    assert.deepEqual(rows.map((r) => r.token), [target.token]);
    const replay = await fetch(`${AUTH_URL}/get-session`, {
      headers: { cookie: `${SESSION_COOKIE}=${cookiesNamed(res.setCookies, SESSION_COOKIE)[1].value}` },
    });
    assert.equal(await replay.json(), null, "the impersonation cookie is dead");
  });

  test("the client: impersonateUser / stopImpersonating", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const imp = await admin.client.admin.impersonateUser({ userId: target.id });
    assert.equal(imp.error, null, JSON.stringify(imp.error));
    assert.equal(imp.data.user.id, target.id);
    assert.equal(imp.data.session.impersonatedBy, admin.id);
    assert.ok(imp.data.session.expiresAt instanceof Date);
    const gs = await admin.client.getSession();
    assert.equal(gs.data.user.id, target.id);
    const stop = await admin.client.admin.stopImpersonating();
    assert.equal(stop.error, null, JSON.stringify(stop.error));
    assert.equal(stop.data.user.id, admin.id);
    assert.equal(stop.data.session.token, admin.token);
    assert.equal((await admin.client.getSession()).data.user.id, admin.id);
    const again = await admin.client.admin.stopImpersonating();
    assert.equal(again.data, null);
    assert.equal(again.error.status, 400);
    assert.equal(again.error.message, "You are not impersonating anyone");
  });

  test("list-sessions hides impersonation sessions; list-user-sessions shows them", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const watcher = browser();
    assert.equal((await call(watcher, "POST", "/sign-in/email", { email: admin.email, password: PASSWORD })).status, 200);
    const imp = await call(admin, "POST", "/admin/impersonate-user", { userId: target.id });
    assert.equal(imp.status, 200, imp.text);
    const impToken = imp.json.session.token;

    // the impersonating browser's own list: only the target's real sessions
    const mine = await call(admin, "GET", "/list-sessions");
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.json.map((s) => s.token), [target.token], "its own (impersonation) session is hidden");
    // the target's list: its session only — neither the impersonation nor the admin's sessions
    const theirs = await call(target, "GET", "/list-sessions");
    assert.deepEqual(theirs.json.map((s) => s.token), [target.token]);
    assert.ok(theirs.json.every((s) => s.impersonatedBy === null && s.userId === target.id));
    // the admin's list (another browser): its own sessions, the one kept for stop-impersonating included
    const adminList = await call(watcher, "GET", "/list-sessions");
    assert.ok(adminList.json.some((s) => s.token === admin.token), "the admin's original session lives on");
    assert.ok(adminList.json.every((s) => s.userId === admin.id));

    // admin/list-user-sessions lists every row, impersonation included
    const rows = await sessionsOf(watcher, target.id);
    assert.deepEqual(rows.map((r) => r.token).sort(), [target.token, impToken].sort());
    const row = rows.find((r) => r.token === impToken);
    assertWireSession(row, { userId: target.id, impersonatedBy: admin.id }, "impersonation row");
    assert.equal(row.expiresAt, imp.json.session.expiresAt);
  });

  test("an admin with rememberMe:false: admin_session remembers it, stop restores a session-only cookie + dont_remember", async () => {
    const admin = await newAdmin({ rememberMe: false });
    const target = await newUser();
    const imp = await call(admin, "POST", "/admin/impersonate-user", { userId: target.id });
    assert.equal(imp.status, 200, imp.text);
    assertImpersonationCookies(imp.setCookies, { adminToken: admin.token, adminDontRemember: true });
    const stop = await call(admin, "POST", "/admin/stop-impersonating");
    assert.equal(stop.status, 200, stop.text);
    assert.deepEqual(stop.setCookies.map((c) => parseSetCookie(c).name).sort(), [ADMIN_SESSION_COOKIE, DONT_REMEMBER_COOKIE, SESSION_COOKIE].sort());
    assertSignedCookie(cookiesNamed(stop.setCookies, SESSION_COOKIE)[0], admin.token, { maxAge: undefined }, "restored session_token");
    assertSignedCookie(cookiesNamed(stop.setCookies, DONT_REMEMBER_COOKIE)[0], "true", { maxAge: undefined }, "dont_remember");
    assertExpired(cookiesNamed(stop.setCookies, ADMIN_SESSION_COOKIE)[0], "admin_session");
    assertAboutMs(Date.parse(stop.json.session.expiresAt), DAY_MS, "the admin's 1-day session");
    assert.equal((await sessionOf(admin)).session.token, admin.token);
  });

  test("refused: an admin target (or yourself) → 403 YOU_CANNOT_IMPERSONATE_ADMINS; unknown → 404; banned → 403 BANNED_USER; no cookie changes", async () => {
    const admin = await newAdmin();
    const otherAdmin = await newAdmin();
    const banned = await newUser();
    await admin.client.admin.banUser({ userId: banned.id });
    const CANNOT = { message: "You cannot impersonate admins", code: "YOU_CANNOT_IMPERSONATE_ADMINS" };
    const cases = [
      [{ userId: otherAdmin.id }, 403, CANNOT],
      [{ userId: admin.id }, 403, CANNOT],
      [{ userId: "no-such-user" }, 404, NOT_FOUND],
      [{ userId: banned.id }, 403, BANNED],
      [{}, 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined")],
    ];
    for (const [body, status, answer] of cases) {
      assertError(await call(admin, "POST", "/admin/impersonate-user", body), status, answer, `impersonate ${JSON.stringify(body)}`);
    }
    assert.deepEqual(admin.jar.names(), [SESSION_COOKIE], "the admin's cookies are unchanged");
    const s = await sessionOf(admin);
    assert.equal(s.session.token, admin.token);
    assert.equal(s.session.impersonatedBy, null);
    assert.equal((await sessionsOf(admin, otherAdmin.id)).length, 1, "no session made for the other admin");
    assert.deepEqual(await sessionsOf(admin, banned.id), [], "none for the banned user");
  });

  test("stop-impersonating: not impersonating → 400; signed out → 401 empty; admin_session missing / forged → 500, nothing changes", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    assertError(await call(admin, "POST", "/admin/stop-impersonating"), 400, NOT_IMPERSONATING, "not impersonating");
    assertError(await call(admin, "POST", "/admin/stop-impersonating", {}), 400, NOT_IMPERSONATING, "not impersonating ({} body)");
    assertEmpty401(await call(null, "POST", "/admin/stop-impersonating"), "signed out");

    const imp = await call(admin, "POST", "/admin/impersonate-user", { userId: target.id });
    assert.equal(imp.status, 200, imp.text);
    const FAILED = { message: "Failed to find admin session" };
    const noCookie = { jar: admin.jar.clone() };
    noCookie.jar.delete(ADMIN_SESSION_COOKIE);
    assertError(await call(noCookie, "POST", "/admin/stop-impersonating"), 500, FAILED, "admin_session missing");
    const forged = { jar: admin.jar.clone() };
    forged.jar.set(ADMIN_SESSION_COOKIE, `${encodeURIComponent(`${target.token}:`)}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D`);
    assertError(await call(forged, "POST", "/admin/stop-impersonating"), 500, FAILED, "admin_session forged");
    // still impersonating, and a proper stop still works
    assert.equal((await sessionOf(noCookie)).session.impersonatedBy, admin.id);
    const stop = await call(admin, "POST", "/admin/stop-impersonating");
    assert.equal(stop.status, 200, stop.text);
    assert.equal(stop.json.session.token, admin.token);
  });

  test("stop-impersonating after the admin's own session was revoked → 500 \"Failed to find admin session\"", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const imp = await call(admin, "POST", "/admin/impersonate-user", { userId: target.id });
    assert.equal(imp.status, 200, imp.text);
    const other = browser();
    assert.equal((await call(other, "POST", "/sign-in/email", { email: admin.email, password: PASSWORD })).status, 200);
    const rv = await call(other, "POST", "/admin/revoke-user-session", { sessionToken: admin.token });
    assertJsonAnswer(rv, 200, { success: true }, "revoke the admin's original session");
    assertError(await call(admin, "POST", "/admin/stop-impersonating"), 500, { message: "Failed to find admin session" }, "admin session gone");
    assert.equal((await sessionOf(admin)).session.impersonatedBy, admin.id, "the impersonation session lives on");
  });
});

// ---------------------------------------------------------------- sessions

describe("admin session routes", () => {
  test("list-user-sessions: {sessions} with every session of the user; unknown user → []", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const second = browser();
    const si = await call(second, "POST", "/sign-in/email", { email: target.email, password: PASSWORD, rememberMe: false });
    assert.equal(si.status, 200);
    const res = await call(admin, "POST", "/admin/list-user-sessions", { userId: target.id });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ["sessions"]);
    assert.deepEqual(res.json.sessions.map((s) => s.token).sort(), [target.token, si.json.token].sort());
    for (const s of res.json.sessions) assertWireSession(s, { userId: target.id, impersonatedBy: null }, "listed session");
    const short = res.json.sessions.find((s) => s.token === si.json.token);
    assertAboutMs(Date.parse(short.expiresAt), DAY_MS, "rememberMe:false session");
    assert.deepEqual(res.setCookies, []);
    const c = await admin.client.admin.listUserSessions({ userId: target.id });
    assert.equal(c.data.sessions.length, 2);
    assert.ok(c.data.sessions[0].expiresAt instanceof Date);

    assertJsonAnswer(await call(admin, "POST", "/admin/list-user-sessions", { userId: "no-such-user" }), 200, { sessions: [] }, "unknown user");
    assertJsonAnswer(await call(admin, "POST", "/admin/list-user-sessions", { userId: 12345 }), 200, { sessions: [] }, "numeric user id");
    assertError(
      await call(admin, "POST", "/admin/list-user-sessions", {}),
      400, validation("[body.userId] Invalid input: expected nonoptional, received undefined"), "no userId"
    );
  });

  test("revoke-user-session: {success:true}; that session dies, the others live; unknown token → success too", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const second = browser();
    const si = await call(second, "POST", "/sign-in/email", { email: target.email, password: PASSWORD });
    const res = await call(admin, "POST", "/admin/revoke-user-session", { sessionToken: target.token });
    assertJsonAnswer(res, 200, { success: true }, "revoke-user-session");
    assert.deepEqual(res.setCookies, []);
    await assertSignedOut(target, "revoked browser");
    assert.equal((await sessionOf(second)).session.token, si.json.token, "the other session lives");
    assert.deepEqual((await sessionsOf(admin, target.id)).map((s) => s.token), [si.json.token]);

    const c = await admin.client.admin.revokeUserSession({ sessionToken: "no-such-token" });
    assert.equal(c.error, null);
    assert.deepEqual(c.data, { success: true });
    assert.equal((await sessionOf(second)).session.token, si.json.token);
    assertError(await call(admin, "POST", "/admin/revoke-user-session", {}), 400, validation("[body.sessionToken] Invalid input: expected string, received undefined"), "no token");
    assertError(await call(admin, "POST", "/admin/revoke-user-session", { sessionToken: 5 }), 400, validation("[body.sessionToken] Invalid input: expected string, received number"), "numeric token");
    assert.equal((await sessionOf(second)).session.token, si.json.token, "still alive after the bad calls");
  });

  test("revoke-user-sessions: {success:true}; every session of the user dies, other users untouched", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const bystander = await newUser();
    const second = browser();
    await call(second, "POST", "/sign-in/email", { email: target.email, password: PASSWORD });
    const res = await call(admin, "POST", "/admin/revoke-user-sessions", { userId: target.id });
    assertJsonAnswer(res, 200, { success: true }, "revoke-user-sessions");
    assert.deepEqual(res.setCookies, []);
    await assertSignedOut(target, "first browser");
    await assertSignedOut(second, "second browser");
    assert.deepEqual(await sessionsOf(admin, target.id), []);
    assert.equal((await sessionOf(bystander)).session.token, bystander.token);
    assert.equal((await sessionOf(admin)).session.token, admin.token);
    assertJsonAnswer(await call(admin, "POST", "/admin/revoke-user-sessions", { userId: "no-such-user" }), 200, { success: true }, "unknown user");
    assertError(await call(admin, "POST", "/admin/revoke-user-sessions", {}), 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined"), "no userId");
    // the user can sign in again
    assert.equal((await trySignIn(target.email)).status, 200);
  });
});

// ---------------------------------------------------------------- remove-user

describe("POST /admin/remove-user", () => {
  test("{success:true}: the user, its sessions and its password are gone", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const res = await call(admin, "POST", "/admin/remove-user", { userId: target.id });
    assertJsonAnswer(res, 200, { success: true }, "remove-user");
    assert.deepEqual(res.setCookies, []);
    await userGone(admin, target.id);
    await assertSignedOut(target, "removed user's browser");
    assert.deepEqual(await sessionsOf(admin, target.id), []);
    assertError(await trySignIn(target.email), 401, INVALID_LOGIN, "removed user's sign-in");
    assert.equal((await call(admin, "GET", "/admin/list-users", { filterField: "id", filterValue: target.id })).json.total, 0);
    assertError(await call(admin, "POST", "/admin/remove-user", { userId: target.id }), 404, NOT_FOUND, "removed twice");
    // the email is free again
    const again = await browser().client.signUp.email({ name: "Again", email: target.email, password: PASSWORD });
    assert.equal(again.error, null, JSON.stringify(again.error));
    assert.notEqual(again.data.user.id, target.id);
  });

  test("yourself → 400 YOU_CANNOT_REMOVE_YOURSELF; unknown → 404; no userId → 400; nothing changes", async () => {
    const admin = await newAdmin();
    assertError(await call(admin, "POST", "/admin/remove-user", { userId: admin.id }), 400, { message: "You cannot remove yourself", code: "YOU_CANNOT_REMOVE_YOURSELF" }, "remove yourself");
    assertError(await call(admin, "POST", "/admin/remove-user", { userId: "no-such-user" }), 404, NOT_FOUND, "unknown");
    assertError(await call(admin, "POST", "/admin/remove-user", {}), 400, validation("[body.userId] Invalid input: expected nonoptional, received undefined"), "no userId");
    const c = await admin.client.admin.removeUser({ userId: admin.id });
    assert.equal(c.error?.code, "YOU_CANNOT_REMOVE_YOURSELF");
    assert.equal((await sessionOf(admin)).session.token, admin.token);
    assert.equal((await fetchUser(admin, admin.id)).id, admin.id);
  });
});

// ---------------------------------------------------------------- set-user-password

describe("POST /admin/set-user-password", () => {
  test("{status:true}: the new password works, the old one not; the user's sessions live on (Gatehouse: end, and a mail)", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const before = Date.now();
    const res = await call(admin, "POST", "/admin/set-user-password", { userId: target.id, newPassword: NEW_PASSWORD });
    assertJsonAnswer(res, 200, { status: true }, "set-user-password");
    assert.deepEqual(res.setCookies, []);
    assertError(await trySignIn(target.email), 401, INVALID_LOGIN, "old password");
    assert.equal((await trySignIn(target.email, NEW_PASSWORD)).status, 200, "new password");
    if (GATEHOUSE) {
      // On purpose: whoever held the old password is signed out, and the user hears of it.
      await assertSignedOut(target, "the target's session");
      const mail = await latestMail(target.email, { after: before, timeoutMs: 10000 });
      assert.equal(mail?.kind, "password-set-by-admin", JSON.stringify(mail));
    } else {
      assert.equal((await sessionOf(target)).session.token, target.token, "existing session kept");
    }
  });

  test("a user created without a password gets a credential account", async () => {
    const admin = await newAdmin();
    const email = uniqueEmail("adm-created");
    const u = await createUser(admin, { email, name: "No Password" });
    assertError(await trySignIn(email, NEW_PASSWORD), 401, INVALID_LOGIN, "before");
    const c = await admin.client.admin.setUserPassword({ userId: u.id, newPassword: NEW_PASSWORD });
    assert.equal(c.error, null);
    assert.deepEqual(c.data, { status: true });
    const si = await trySignIn(email, NEW_PASSWORD);
    assert.equal(si.status, 200, si.text);
    assert.equal(si.json.user.id, u.id);
  });

  test("bad input → exact errors (length checks before the user lookup); the password is unchanged", async () => {
    const admin = await newAdmin();
    const target = await newUser();
    const cases = [
      [{ userId: target.id, newPassword: "short" }, 400, { message: "Password too short", code: "PASSWORD_TOO_SHORT" }],
      [{ userId: target.id, newPassword: "a".repeat(129) }, 400, { message: "Password too long", code: "PASSWORD_TOO_LONG" }],
      [{ userId: "no-such-user", newPassword: "short" }, 400, { message: "Password too short", code: "PASSWORD_TOO_SHORT" }],
      [{ userId: "no-such-user", newPassword: NEW_PASSWORD }, 404, NOT_FOUND],
      [{ userId: target.id, newPassword: "" }, 400, validation("[body.newPassword] newPassword cannot be empty")],
      [{ userId: "", newPassword: NEW_PASSWORD }, 400, validation("[body.userId] userId cannot be empty")],
      [{}, 400, validation("[body.newPassword] Invalid input: expected string, received undefined; [body.userId] Invalid input: expected nonoptional, received undefined")],
    ];
    for (const [body, status, answer] of cases) {
      assertError(await call(admin, "POST", "/admin/set-user-password", body), status, answer, `set-user-password ${JSON.stringify(body)}`);
    }
    assert.equal((await trySignIn(target.email)).status, 200, "old password still works");
    assert.equal((await trySignIn(target.email, NEW_PASSWORD)).status, 401);
  });
});

// ---------------------------------------------------------------- has-permission

describe("POST /admin/has-permission", () => {
  test("the caller's own role: admin → true except user:impersonate-admins; user → false", async () => {
    const admin = await newAdmin();
    const plain = await newUser();
    const ask = (who, body) => call(who, "POST", "/admin/has-permission", body);
    const yes = { error: null, success: true };
    const no = { error: null, success: false };
    const cases = [
      [admin, { permissions: { user: ["list", "ban"] } }, yes],
      [admin, { permissions: { user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"], session: ["list", "revoke", "delete"] } }, yes],
      [admin, { permissions: { user: ["impersonate-admins"] } }, no],
      [admin, { permissions: { user: ["list", "impersonate-admins"] } }, no],
      [admin, { permissions: { foo: ["bar"] } }, no],
      [admin, { permissions: { user: ["fly"] } }, no],
      [admin, { permissions: {} }, no],
      [admin, { permissions: { user: [] } }, no],
      [plain, { permissions: { user: ["list"] } }, no],
      [plain, { permissions: { session: ["list"] } }, no],
    ];
    for (const [who, body, answer] of cases) {
      const res = await ask(who, body);
      assertJsonAnswer(res, 200, answer, `${who === admin ? "admin" : "user"} ${JSON.stringify(body)}`);
      assert.deepEqual(res.setCookies, []);
    }
    const c = await admin.client.admin.hasPermission({ permissions: { session: ["revoke"] } });
    assert.equal(c.error, null);
    assert.deepEqual(c.data, yes);
  });

  test("with a session, `role` and `userId` are ignored: the caller's own role decides", async () => {
    const admin = await newAdmin();
    const plain = await newUser();
    const ask = (who, body) => call(who, "POST", "/admin/has-permission", { permissions: { user: ["list"] }, ...body });
    assertJsonAnswer(await ask(plain, { role: "admin" }), 200, { error: null, success: false }, "user asking as role admin");
    assertJsonAnswer(await ask(plain, { userId: admin.id }), 200, { error: null, success: false }, "user asking for the admin");
    assertJsonAnswer(await ask(admin, { role: "user" }), 200, { error: null, success: true }, "admin asking as role user");
    assertJsonAnswer(await ask(admin, { userId: plain.id }), 200, { error: null, success: true }, "admin asking for a user");
    assertJsonAnswer(await ask(admin, { userId: "no-such-user" }), 200, { error: null, success: true }, "admin asking for nobody");
  });

  test("bad bodies → exact 400s; signed out → 401 empty", async () => {
    const admin = await newAdmin();
    const ask = (body) => call(admin, "POST", "/admin/has-permission", body);
    assertError(await ask({ permission: { user: ["list"] } }), 400, { message: "invalid permission check. no permission(s) were passed." }, "singular permission");
    assertError(await ask({ permission: { user: ["list"] }, permissions: { user: ["list"] } }), 400, validation("[body] Invalid input: more than one option matched"), "both");
    assertError(await ask({}), 400, validation("[body] Invalid input"), "neither");
    assertError(await ask({ permissions: { user: "list" } }), 400, validation("[body] Invalid input"), "actions not an array");
    assertError(await ask({ permissions: ["user"] }), 400, validation("[body] Invalid input"), "permissions an array");
    assertError(await ask({ permissions: { user: ["list"] }, role: 5 }), 400, validation("[body.role] Invalid input: expected string, received number"), "role 5");
    assertError(await ask(undefined), 400, validation("[body] Invalid input: expected object, received undefined; [body] Invalid input"), "no body");
    for (const body of [{ permissions: { user: ["list"] } }, { permissions: { user: ["list"] }, role: "admin" }, { permissions: { user: ["list"] }, userId: admin.id }]) {
      assertEmpty401(await call(null, "POST", "/admin/has-permission", body), `signed out ${JSON.stringify(body)}`);
    }
  });
});
