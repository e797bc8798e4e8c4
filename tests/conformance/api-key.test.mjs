// The api-key plugin (`/api-key/*`, keys as sessions through `x-api-key`), driven through the
// official client with `apiKeyClient()` (@better-auth/api-key 1.7.5) and raw requests against
// the server at $GATEHOUSE_URL. Keys with limits only the server may set are made with the
// operator's command, $API_KEY_CMD (`gatehouse api-key create --email`), with the email and
// the limits appended.
//
// What better-auth answers (observed on the reference server with
// `apiKey({enableSessionForAPIKeys: true})`):
//  * create → the row plus `key` (prefix + 64 letters; `start` its first 6), shown once;
//    get/list/update never show `key`. Errors are `{message, code}`.
//  * server-only fields (remaining, refill*, rateLimit*, permissions) over HTTP → 400
//    SERVER_ONLY_PROPERTY; create without a session → 401 UNAUTHORIZED_SESSION; get, list and
//    delete without one → 401 UNAUTHORIZED; another user's key → 404 KEY_NOT_FOUND.
//  * x-api-key shorter than 64 → 403 INVALID_API_KEY, unknown → 401 INVALID_API_KEY, disabled
//    → 401 KEY_DISABLED, spent → 429 USAGE_EXCEEDED, over its rate → 429 RATE_LIMITED with
//    details.tryAgainIn (ms).
// Where Gatehouse differs on purpose (README): a new key's rate limit is 600 a minute, not 10
// a day; a spent key stays listed; the 429 also has Retry-After; a key's session is never
// "fresh".
import { test } from "node:test";
import assert from "node:assert/strict";
import { execSync } from "node:child_process";
import { apiKeyClient } from "@better-auth/api-key/client";
import { AUTH_URL, BASE_URL, GATEHOUSE, PASSWORD, newBrowser, postJson, shellQuote, uniqueEmail } from "./helpers.mjs";

const ORIGIN = new URL(BASE_URL).origin;

async function newUser(prefix = "key") {
  const b = newBrowser({ plugins: [apiKeyClient()] });
  const email = uniqueEmail(prefix);
  const res = await b.client.signUp.email({ email, password: PASSWORD, name: "Key Owner" });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { ...b, email, id: res.data.user.id };
}

/** A request authenticated by `key` alone (no cookies). */
async function withKey(key, path, init = {}) {
  const res = await fetch(`${AUTH_URL}${path}`, {
    ...init,
    headers: { "x-api-key": key, origin: ORIGIN, ...(init.headers || {}) },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

/** A key with server-set limits, made by the operator's command. */
function operatorKey(email, args) {
  const cmd = process.env.API_KEY_CMD;
  assert.ok(cmd, "API_KEY_CMD is not set (scripts/test.sh sets it)");
  const out = execSync(`${cmd} ${shellQuote(email)} ${args}`, { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
}

test("a key is shown once, stored as its owner sees it, and signs requests in", async () => {
  const u = await newUser();
  // Metadata is on by default here, off in better-auth (README).
  const metadata = GATEHOUSE ? { metadata: { team: "ops" } } : {};
  const made = await u.client.apiKey.create({ name: "deploy", prefix: "gh_", ...metadata });
  assert.equal(made.error, null, JSON.stringify(made.error));
  const key = made.data.key;
  assert.match(key, /^gh_[A-Za-z]{64}$/);
  assert.equal(made.data.start, key.slice(0, 6));
  assert.equal(made.data.referenceId, u.id);
  if (GATEHOUSE) assert.deepEqual(made.data.metadata, { team: "ops" });
  assert.equal(made.data.enabled, true);

  const got = await u.client.apiKey.get({ query: { id: made.data.id } });
  assert.equal(got.error, null);
  assert.equal(got.data.key, undefined, "the key is never shown again");
  assert.equal(got.data.name, "deploy");

  const session = await withKey(key, "/get-session");
  assert.equal(session.status, 200);
  assert.equal(session.json.user.id, u.id);
  assert.equal(session.json.session.id, made.data.id);
  assert.equal(session.json.session.userId, u.id);
  assert.equal(session.headers.get("set-cookie"), null, "a key's session sets no cookie");

  // Through the official client too, with no cookie at all.
  const bare = newBrowser({ plugins: [apiKeyClient()] });
  const viaClient = await bare.client.getSession({ fetchOptions: { headers: { "x-api-key": key } } });
  assert.equal(viaClient.data.user.email, u.email);

  // Every route that takes a session takes the key: the key's owner lists their keys.
  const listed = await withKey(key, "/api-key/list");
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.apiKeys.map((k) => k.id), [made.data.id]);
  assert.ok(listed.json.apiKeys[0].lastRequest, "the first use is recorded");
});

test("bad keys are refused with the plugin's codes", async () => {
  const short = await withKey("abc", "/get-session");
  assert.equal(short.status, 403);
  assert.deepEqual(short.json, { message: "Invalid API key.", code: "INVALID_API_KEY" });
  const unknown = await withKey("Z".repeat(64), "/get-session");
  assert.equal(unknown.status, 401);
  assert.equal(unknown.json.code, "INVALID_API_KEY");

  const u = await newUser();
  const made = await u.client.apiKey.create({ name: "off" });
  const off = await u.client.apiKey.update({ keyId: made.data.id, enabled: false });
  assert.equal(off.error, null);
  assert.equal(off.data.enabled, false);
  const disabled = await withKey(made.data.key, "/get-session");
  assert.equal(disabled.status, 401);
  assert.deepEqual(disabled.json, { message: "API Key is disabled", code: "KEY_DISABLED" });
  // A key wins over a cookie, as in better-auth: a bad one is refused even signed in.
  const both = await u.jar.fetch(`${AUTH_URL}/get-session`, { headers: { "x-api-key": "abc" } });
  assert.equal(both.status, 403);
});

test("a key's expiry is its session's, within the plugin's bounds", async () => {
  const u = await newUser();
  const day = 86400;
  const made = await u.client.apiKey.create({ name: "daily", expiresIn: day });
  assert.equal(made.error, null);
  const expires = Date.parse(made.data.expiresAt);
  assert.ok(Math.abs(expires - (Date.now() + day * 1000)) < 60_000, made.data.expiresAt);
  const session = await withKey(made.data.key, "/get-session");
  assert.equal(session.json.session.expiresAt, new Date(made.data.expiresAt).toISOString());

  const small = await u.client.apiKey.create({ expiresIn: day - 1 });
  assert.equal(small.error.status, 400);
  assert.equal(small.error.code, "EXPIRES_IN_IS_TOO_SMALL");
  const large = await u.client.apiKey.create({ expiresIn: 365 * day + 1 });
  assert.equal(large.error.code, "EXPIRES_IN_IS_TOO_LARGE");
  const cleared = await u.client.apiKey.update({ keyId: made.data.id, expiresIn: null });
  assert.equal(cleared.data.expiresAt, null);
});

test("bad input is refused in better-auth's shape and changes nothing", async () => {
  const u = await newUser();
  const serverOnly = await u.client.apiKey.create({ name: "x", remaining: 5 });
  assert.equal(serverOnly.error.status, 400);
  assert.equal(serverOnly.error.code, "SERVER_ONLY_PROPERTY");
  for (const body of [{ rateLimitMax: 5 }, { permissions: { files: ["read"] } }, { refillAmount: 2, refillInterval: 1000 }]) {
    const res = await postJson(u.jar, "/api-key/create", body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.json.code, "SERVER_ONLY_PROPERTY");
  }
  const longName = await u.client.apiKey.create({ name: "n".repeat(33) });
  assert.equal(longName.error.code, "INVALID_NAME_LENGTH");
  const badPrefix = await postJson(u.jar, "/api-key/create", { prefix: "gh$!" });
  assert.equal(badPrefix.status, 400);
  assert.equal(badPrefix.json.code, "VALIDATION_ERROR");
  const malformed = await u.jar.fetch(`${AUTH_URL}/api-key/create`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"name":',
  });
  assert.equal(malformed.status, 400);
  const signedOut = await fetch(`${AUTH_URL}/api-key/create`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN },
    body: JSON.stringify({ name: "nobody" }),
  });
  assert.equal(signedOut.status, 401);
  assert.equal((await signedOut.json()).code, "UNAUTHORIZED_SESSION");
  const listed = await u.client.apiKey.list();
  assert.equal(listed.data.total, 0, "nothing was made");

  for (const path of ["/api-key/verify", "/api-key/delete-all-expired-api-keys"]) {
    const res = await postJson(u.jar, path, {});
    assert.equal(res.status, 404, `${path} is server-only`);
  }
});

test("another user's key is not found, and stays as it was", async () => {
  const owner = await newUser("key-owner");
  const other = await newUser("key-other");
  const made = await owner.client.apiKey.create({ name: "mine" });
  const id = made.data.id;
  const got = await other.client.apiKey.get({ query: { id } });
  assert.equal(got.error.status, 404);
  assert.equal(got.error.code, "KEY_NOT_FOUND");
  const renamed = await other.client.apiKey.update({ keyId: id, name: "theirs" });
  assert.equal(renamed.error.code, "KEY_NOT_FOUND");
  const deleted = await other.client.apiKey.delete({ keyId: id });
  assert.equal(deleted.error.code, "KEY_NOT_FOUND");
  const still = await owner.client.apiKey.get({ query: { id } });
  assert.equal(still.data.name, "mine");
  const theirs = await other.client.apiKey.list();
  assert.equal(theirs.data.total, 0);
});

test("owners list (sorted, paged), rename and delete their keys", async () => {
  const u = await newUser();
  for (const name of ["b", "a", "c"]) await u.client.apiKey.create({ name });
  const page = await u.client.apiKey.list({ query: { sortBy: "name", sortDirection: "desc", limit: 2 } });
  assert.equal(page.error, null);
  assert.deepEqual(page.data.apiKeys.map((k) => k.name), ["c", "b"]);
  assert.equal(page.data.total, 3);
  assert.equal(page.data.limit, 2);
  const nothing = await u.client.apiKey.update({ keyId: page.data.apiKeys[0].id });
  assert.equal(nothing.error.code, "NO_VALUES_TO_UPDATE");
  const renamed = await u.client.apiKey.update({ keyId: page.data.apiKeys[0].id, name: "z" });
  assert.equal(renamed.data.name, "z");
  const gone = await u.client.apiKey.delete({ keyId: page.data.apiKeys[1].id });
  assert.deepEqual(gone.data, { success: true });
  const rest = await u.client.apiKey.list();
  assert.equal(rest.data.total, 2);
});

test("a deleted key stops at once", async () => {
  const u = await newUser();
  const made = await u.client.apiKey.create({ name: "short-lived" });
  assert.equal((await withKey(made.data.key, "/get-session")).status, 200);
  await u.client.apiKey.delete({ keyId: made.data.id });
  const after = await withKey(made.data.key, "/get-session");
  assert.equal(after.status, 401);
  assert.equal(after.json.code, "INVALID_API_KEY");
});

test("server-set limits: remaining uses, refill, and a rate limit that says when to come back", { skip: !GATEHOUSE && "the operator's command is Gatehouse's" }, async () => {
  const u = await newUser("key-limits");
  const capped = operatorKey(u.email, "--remaining 2 --no-rate-limit");
  assert.equal(capped.remaining, 2);
  assert.equal((await withKey(capped.key, "/get-session")).status, 200);
  assert.equal((await withKey(capped.key, "/get-session")).status, 200);
  const spent = await withKey(capped.key, "/get-session");
  assert.equal(spent.status, 429);
  assert.deepEqual(spent.json, { message: "API Key has reached its usage limit", code: "USAGE_EXCEEDED" });
  const listed = await u.client.apiKey.get({ query: { id: capped.id } });
  assert.equal(listed.data.remaining, 0, "a spent key stays, showing why it stopped");

  const refilling = operatorKey(u.email, "--remaining 1 --refill-amount 2 --refill-interval-ms 1000 --no-rate-limit");
  assert.equal((await withKey(refilling.key, "/get-session")).status, 200);
  assert.equal((await withKey(refilling.key, "/get-session")).status, 429);
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal((await withKey(refilling.key, "/get-session")).status, 200, "refilled");
  assert.equal((await withKey(refilling.key, "/get-session")).status, 200);
  assert.equal((await withKey(refilling.key, "/get-session")).status, 429);

  const limited = operatorKey(u.email, "--rate-limit-max 2 --rate-limit-window-ms 60000");
  assert.equal((await withKey(limited.key, "/get-session")).status, 200);
  // One request, one count, however many checks read the key: counted twice, this second
  // request would already be over the limit of 2.
  const second = await withKey(limited.key, "/api-key/list");
  assert.equal(second.status, 200);
  const mine = second.json.apiKeys.find((k) => k.id === limited.id);
  assert.equal(mine.requestCount, 1, "the count is written at most once a minute: the first use's");
  const refused = await withKey(limited.key, "/get-session");
  assert.equal(refused.status, 429);
  assert.equal(refused.json.code, "RATE_LIMITED");
  assert.equal(refused.json.message, "Rate limit exceeded.");
  const wait = refused.json.details.tryAgainIn;
  assert.ok(wait > 50_000 && wait <= 60_000, String(wait));
  assert.equal(refused.headers.get("retry-after"), String(Math.ceil(wait / 1000)));
});

test("a banned user's keys stop at once", { skip: !GATEHOUSE && "banning needs the operator's admin command" }, async () => {
  const admin = await newUser("key-admin");
  const { makeAdmin } = await import("./helpers.mjs");
  makeAdmin(admin.email);
  const u = await newUser("key-banned");
  const made = await u.client.apiKey.create({ name: "to-ban" });
  assert.equal((await withKey(made.data.key, "/get-session")).status, 200);
  const banned = await postJson(admin.jar, "/admin/ban-user", { userId: u.id });
  assert.equal(banned.status, 200, banned.text);
  const after = await withKey(made.data.key, "/get-session");
  assert.equal(after.status, 401);
  assert.equal(after.json.code, "USER_BANNED");
});

test("an organization's keys: its owner manages them, other roles and strangers are refused", async () => {
  const { orgWithStaff, signUp, post, get } = await import("./organization/common.mjs");
  const { owner, org, admin, member } = await orgWithStaff();
  const made = await post(owner, "/api-key/create", { name: "org-ci", organizationId: org.id, configId: "org" });
  assert.equal(made.status, 200, JSON.stringify(made.json));
  assert.equal(made.json.referenceId, org.id);
  assert.equal(made.json.configId, "org");
  const listed = await get(owner, "/api-key/list", { organizationId: org.id });
  assert.deepEqual(listed.json.apiKeys.map((k) => k.id), [made.json.id]);
  const own = await get(owner, "/api-key/list");
  assert.equal(own.json.total, 0, "an organization's key is not its creator's");
  const renamed = await post(owner, "/api-key/update", { keyId: made.json.id, name: "org-ci-2", configId: "org" });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.json.name, "org-ci-2");

  // better-auth's default admin and member roles hold no `apiKey` statement.
  for (const [who, u] of [["admin", admin], ["member", member]]) {
    const create = await post(u, "/api-key/create", { name: "nope", organizationId: org.id });
    assert.equal(create.status, 403, who);
    assert.equal(create.json.code, "INSUFFICIENT_API_KEY_PERMISSIONS", who);
    const read = await get(u, "/api-key/get", { id: made.json.id });
    assert.equal(read.json.code, "INSUFFICIENT_API_KEY_PERMISSIONS", who);
    const remove = await post(u, "/api-key/delete", { keyId: made.json.id });
    assert.equal(remove.status, 403, who);
  }
  const stranger = await signUp("key-stranger");
  const theirs = await get(stranger, "/api-key/list", { organizationId: org.id });
  assert.equal(theirs.status, 403);
  assert.equal(theirs.json.code, "USER_NOT_MEMBER_OF_ORGANIZATION");

  // An organization's key is no one's session.
  const session = await withKey(made.json.key, "/get-session");
  assert.equal(session.status, 401);
  assert.equal(session.json.code, GATEHOUSE ? "INVALID_REFERENCE_ID_FROM_API_KEY" : "INVALID_API_KEY");

  // Deleting the organization deletes its keys (through its event).
  const deleted = await post(owner, "/organization/delete", { organizationId: org.id });
  assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
  let after;
  for (let i = 0; i < 50; i++) {
    after = await withKey(made.json.key, "/get-session");
    if (after.json?.code === "INVALID_API_KEY") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(after.json.code, "INVALID_API_KEY", "the key went with its organization");
});
