// Shared setup and exact-answer asserts for the organization plugin suites (organizationClient
// with teams on). Everything here talks HTTP to the server under test; nothing reads a database
// (except `expireInvitation`, which runs the command in EXPIRE_INVITATION_CMD — see README.md).
import assert from "node:assert/strict";
import { execSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { organizationClient } from "better-auth/client/plugins";
import { AUTH_URL, BASE_URL, PASSWORD, newBrowser, parseSetCookie, shellQuote, splitSigned, uniqueEmail } from "../helpers.mjs";
import { latestMail } from "../mail.mjs";

export const plugins = [organizationClient({ teams: { enabled: true } })];
export const ORIGIN = new URL(BASE_URL).origin;
const SECURE = new URL(BASE_URL).protocol === "https:";
export const SESSION_COOKIE = `${SECURE ? "__Secure-" : ""}better-auth.session_token`;

// ---------------------------------------------------------------------------------------------
// Wire shapes (key sets, sorted)

/** Organization as every route but create/update returns it (metadata = stored text or null). */
export const ORG_KEYS = ["createdAt", "id", "logo", "metadata", "name", "slug"];
/** A member row without its user (create, accept-invitation, update-member-role, remove-member by id). */
export const MEMBER_KEYS = ["createdAt", "id", "organizationId", "role", "userId"];
/** A member row with its user (list-members, get-active-member, full organization, leave, remove by email). */
export const MEMBER_WITH_USER_KEYS = [...MEMBER_KEYS, "user"].sort();
export const MEMBER_USER_KEYS = ["email", "id", "image", "name"];
export const INVITATION_KEYS = ["createdAt", "email", "expiresAt", "id", "inviterId", "organizationId", "role", "status", "teamId"];
/** A team as the team routes return it (memberCount hidden). */
export const TEAM_KEYS = ["createdAt", "id", "name", "organizationId", "updatedAt"];
/** A team inside get-full-organization: memberCount is NOT hidden there. */
export const FULL_ORG_TEAM_KEYS = [...TEAM_KEYS, "memberCount"].sort();
export const TEAM_MEMBER_KEYS = ["createdAt", "id", "teamId", "userId"];
/** ISO-8601 as Date.prototype.toISOString() writes it. */
export const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ID_RE = /^[A-Za-z0-9]{32}$/;

/** Sorted keys of an object. */
export const keys = (o) => Object.keys(o).sort();

/** Asserts the exact key set of `o`. */
export function assertKeys(o, expected, what) {
  assert.ok(o && typeof o === "object", `${what}: an object, got ${JSON.stringify(o)}`);
  assert.deepEqual(keys(o), [...expected].sort(), `${what}: exact keys of ${JSON.stringify(o)}`);
}

// ---------------------------------------------------------------------------------------------
// Errors: better-auth's ORGANIZATION_ERROR_CODES (1.7.7) and the few core ones used here

export const MESSAGES = {
  ORGANIZATION_ALREADY_EXISTS: "Organization already exists",
  ORGANIZATION_SLUG_ALREADY_TAKEN: "Organization slug already taken",
  ORGANIZATION_NOT_FOUND: "Organization not found",
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: "User is not a member of the organization",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: "You are not allowed to update this organization",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: "You are not allowed to delete this organization",
  NO_ACTIVE_ORGANIZATION: "No active organization",
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: "User is already a member of this organization",
  MEMBER_NOT_FOUND: "Member not found",
  TEAM_NOT_FOUND: "Team not found",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: "You cannot leave the organization as the only owner",
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: "You cannot leave the organization without an owner",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: "You are not allowed to delete this member",
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: "You are not allowed to invite users to this organization",
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: "User is already invited to this organization",
  INVITATION_NOT_FOUND: "Invitation not found",
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: "You are not the recipient of the invitation",
  EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION: "Email verification required to view or list invitations for the session email",
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: "You are not allowed to cancel this invitation",
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: "Inviter is no longer a member of the organization",
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: "You are not allowed to invite a user with this role",
  UNABLE_TO_REMOVE_LAST_TEAM: "Unable to remove last team",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: "You are not allowed to update this member",
  YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION: "You are not allowed to create teams in this organization",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION: "You are not allowed to delete teams in this organization",
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM: "You are not allowed to update this team",
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: "You are not allowed to delete this team",
  INVITATION_LIMIT_REACHED: "Invitation limit reached",
  USER_IS_NOT_A_MEMBER_OF_THE_TEAM: "User is not a member of the team",
  YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM: "You do not have an active team",
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER: "You are not allowed to create a new member",
  YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER: "You are not allowed to remove a team member",
  YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION: "You are not allowed to access this organization as an owner",
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: "You are not a member of this organization",
  INVALID_TEAM_ID: "Team id contains a reserved character",
  // core
  INVALID_EMAIL: "Invalid email",
  UNAUTHORIZED: "Unauthorized",
};

/** The exact error body `{code, message}` of a table entry. */
export function err(code) {
  const message = MESSAGES[code];
  if (!message) throw new Error(`no message known for ${code}`);
  return { code, message };
}
export const UNAUTHORIZED = err("UNAUTHORIZED");

// ---------------------------------------------------------------------------------------------
// Raw requests

/**
 * One raw request to `$AUTH_URL<path>` through a browser's jar (its cookies, Origin) or, with
 * `jar` null, cookie-less with the site's Origin. `query` goes through URLSearchParams (array
 * values become repeated parameters). Redirects are not followed.
 * @returns {Promise<{status:number, headers:Headers, text:string, json:any, setCookies:string[]}>}
 */
export async function call(jar, method, path, { body, query, headers = {} } = {}) {
  let qs = "";
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
    }
    qs = `?${params}`;
  }
  const init = {
    method,
    redirect: "manual",
    headers: {
      ...(jar ? {} : { origin: ORIGIN }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
  const res = await (jar ? jar.fetch : fetch)(`${AUTH_URL}${path}${qs}`, init);
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, setCookies: res.headers.getSetCookie() };
}

/** POST through the user's browser. */
export const post = (u, path, body) => call(u.jar, "POST", path, { body });
/** GET through the user's browser. */
export const get = (u, path, query) => call(u.jar, "GET", path, { query });

// ---------------------------------------------------------------------------------------------
// Exact-answer asserts

const show = (res) => `${res.status} ${res.text}`;

/** A JSON answer with exactly `body` and (unless `setsCookies`) no Set-Cookie. */
export function assertJson(res, status, body, what, { setsCookies = false } = {}) {
  assert.equal(res.status, status, `${what}: ${show(res)}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${what}: content-type`);
  assert.deepEqual(res.json, body, `${what}: exact body`);
  if (!setsCookies) assert.deepEqual(res.setCookies, [], `${what}: no Set-Cookie`);
}

/** A `{code, message}` error of the table, exactly, and no Set-Cookie. */
export function assertError(res, status, code, what) {
  assertJson(res, status, err(code), what);
}

/** An error thrown with a status only: an empty body (content-type still JSON), no Set-Cookie. */
export function assertEmptyError(res, status, what) {
  assert.equal(res.status, status, `${what}: ${show(res)}`);
  assert.equal(res.text, "", `${what}: empty body`);
  assert.deepEqual(res.setCookies, [], `${what}: no Set-Cookie`);
}

/** A 200 JSON answer (asserts no Set-Cookie unless `setsCookies`); returns the body. */
export function ok(res, what, { setsCookies = false } = {}) {
  assert.equal(res.status, 200, `${what}: ${show(res)}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${what}: content-type`);
  if (!setsCookies) assert.deepEqual(res.setCookies, [], `${what}: no Set-Cookie`);
  return res.json;
}

/** A zod validation failure: 400 `{code: "VALIDATION_ERROR", message}`. */
export function assertValidation(res, message, what) {
  assertJson(res, 400, { code: "VALIDATION_ERROR", message }, what);
}

/**
 * The session cookie re-issued by `res` (exactly one session_token Set-Cookie, carrying the same
 * session token as before, signed): returns it parsed.
 */
export function assertSessionCookieReissued(res, u, what) {
  const found = res.setCookies.map(parseSetCookie).filter((c) => c.name === SESSION_COOKIE);
  assert.equal(found.length, 1, `${what}: one ${SESSION_COOKIE} Set-Cookie, got ${JSON.stringify(res.setCookies)}`);
  const names = res.setCookies.map((c) => parseSetCookie(c).name);
  assert.deepEqual(names, [SESSION_COOKIE], `${what}: only the session cookie is set`);
  assert.equal(splitSigned(found[0].value).value, u.token, `${what}: the same session token, re-signed`);
  assert.equal(found[0].attributes["max-age"], "604800", `${what}: Max-Age`);
  return found[0];
}

// ---------------------------------------------------------------------------------------------
// Users, organizations, members

let slugSeq = 0;
const SLUG_RUN = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
/** A unique, lower-case slug for this run. */
export function uniqueSlug(prefix = "org") {
  slugSeq += 1;
  return `${prefix}-${SLUG_RUN}-${slugSeq}`;
}

/**
 * A new user signed up in a new browser with the organization client:
 * {jar, client, email, user, token} (token = the unsigned session token).
 */
export async function signUp(prefix = "org", name = "Org Person") {
  const b = newBrowser({ plugins });
  const email = uniqueEmail(prefix);
  const { data, error } = await b.client.signUp.email({ name, email, password: PASSWORD });
  assert.equal(error, null, `sign-up: ${JSON.stringify(error)}`);
  return { ...b, email, user: data.user, token: data.token };
}

/** The {organization, team} the user's session has active (read fresh, no cookie cache). */
export async function activeOf(u) {
  const res = await call(u.jar, "GET", "/get-session", { query: { disableCookieCache: "true" } });
  assert.equal(res.status, 200, `get-session: ${show(res)}`);
  assert.ok(res.json, "get-session: signed in");
  return { organization: res.json.session.activeOrganizationId, team: res.json.session.activeTeamId };
}

/** Creates an organization as `u` (POST /organization/create) and returns the answer. */
export async function createOrg(u, body = {}) {
  const res = await post(u, "/organization/create", { name: "Acme", slug: uniqueSlug(), ...body });
  return ok(res, "create organization");
}

/** The organization's teams, as `u` (GET /organization/list-teams?organizationId). */
export async function teamsOf(u, organizationId) {
  return ok(await get(u, "/organization/list-teams", { organizationId }), "list-teams");
}

/**
 * A new owner with a new organization (active, with its default team active):
 * {owner, org, team} where team = the default team.
 */
export async function ownerWithOrg(body = {}) {
  const owner = await signUp("owner", "Owner");
  const org = await createOrg(owner, body);
  const [team] = await teamsOf(owner, org.id);
  return { owner, org, team };
}

/** `inviter` invites `email` into `organizationId` with `role` (+ extra body); returns the invitation. */
export async function invite(inviter, organizationId, email, role = "member", extra = {}) {
  const res = await post(inviter, "/organization/invite-member", { email, role, organizationId, ...extra });
  return ok(res, `invite ${email} as ${role}`);
}

/**
 * An invitation mail's link, `<base>/accept-invitation/<id>` (better-auth) or with
 * `?token=<token>` (Gatehouse: the token proves the address it was mailed to): {id, token}.
 */
export function invitationLink(mail) {
  const url = new URL(mail.url);
  const id = decodeURIComponent(url.pathname.split("/").filter(Boolean).pop() ?? "");
  assert.equal(url.pathname.replace(/\/$/, ""), `${new URL(BASE_URL).pathname.replace(/\/$/, "")}/accept-invitation/${id}`, mail.url);
  return { id, token: url.searchParams.get("token") };
}

/**
 * How the invitee answers from the newest mail to `u`: `{invitationId}`, plus the link's
 * `token` when it has one (Gatehouse requires a verified address, or that token, by default).
 */
export async function answerOf(u, invitationId) {
  // The mail goes out after the request: wait until the newest one is this invitation's.
  for (let tries = 0; ; tries += 1) {
    const { id, token } = invitationLink(await mailTo(u.email));
    if (id === invitationId) return token ? { invitationId, token } : { invitationId };
    assert.ok(tries < 60, `no mail of invitation ${invitationId} to ${u.email}`);
    await sleep(50);
  }
}

/** `u` accepts the invitation from its mail: the raw reply. */
export async function acceptFromMail(u, invitationId) {
  return post(u, "/organization/accept-invitation", await answerOf(u, invitationId));
}

/** `u` accepts the invitation (from its mail); returns {invitation, member}. */
export async function accept(u, invitationId) {
  const res = await acceptFromMail(u, invitationId);
  assert.equal(res.status, 200, `accept-invitation: ${show(res)}`);
  return res.json;
}

/**
 * A new user who joined `org` with `role` by accepting an invitation from `inviter`:
 * {u, member, invitation}. The organization is then the new user's active one.
 */
export async function join(inviter, org, role = "member", prefix = role) {
  const u = await signUp(prefix, `The ${role}`);
  const invitation = await invite(inviter, org.id, u.email, role);
  const { member } = await accept(u, invitation.id);
  return { u, member, invitation };
}

/**
 * An owner with an organization plus an admin and a plain member who joined it by invitation:
 * {owner, org, team, admin, adminMember, member, memberMember}.
 */
export async function orgWithStaff() {
  const { owner, org, team } = await ownerWithOrg();
  const { u: admin, member: adminMember } = await join(owner, org, "admin");
  const { u: member, member: memberMember } = await join(owner, org, "member");
  return { owner, org, team, admin, adminMember, member, memberMember };
}

// ---------------------------------------------------------------------------------------------
// Mail, email verification, expiry

/** The newest mail to `to` sent at or after `after`; fails the test if none arrives. */
export async function mailTo(to, after) {
  const mail = await latestMail(to, { after });
  assert.ok(mail, `a mail to ${to} was sent (MAIL_LOG for the reference, the dev mailbox for Gatehouse)`);
  return mail;
}

/** Asserts that nothing was mailed to `to` since `after`. */
export async function assertNoMail(to, after, what) {
  const mail = await latestMail(to, { after, timeoutMs: process.env.MAIL_LOG ? 300 : 1500 });
  assert.equal(mail, null, `${what}: no mail to ${to}, got ${JSON.stringify(mail?.raw)}`);
}

/** Verifies `u`'s email through the mailed link (POST /send-verification-email, GET /verify-email). */
export async function verifyEmail(u) {
  const t = Date.now();
  const sent = await post(u, "/send-verification-email", { email: u.email });
  assert.equal(sent.status, 200, `send-verification-email: ${show(sent)}`);
  const mail = await mailTo(u.email, t);
  assert.ok(mail.token, `verification mail carries a token: ${JSON.stringify(mail.raw)}`);
  const done = await call(u.jar, "GET", "/verify-email", { query: { token: mail.token } });
  assert.ok(done.status === 200 || done.status === 302, `verify-email: ${show(done)}`);
  const s = await call(u.jar, "GET", "/get-session", { query: { disableCookieCache: "true" } });
  assert.equal(s.json?.user?.emailVerified, true, "the email is verified now");
}

/**
 * Makes the invitation `id` expired by running the shell command in EXPIRE_INVITATION_CMD with
 * the id appended as its last (quoted) argument (the reference: ./expire-invitation.sh, see
 * README.md). Fails the calling test loudly if unset or failing.
 */
export function expireInvitation(id) {
  const cmd = process.env.EXPIRE_INVITATION_CMD;
  if (!cmd || !cmd.trim()) {
    throw new Error(
      "EXPIRE_INVITATION_CMD is not set: a shell command that sets the expiresAt of the invitation whose id is " +
        "appended to it into the past, e.g. EXPIRE_INVITATION_CMD=\"DB_PATH=/tmp/reforg.sqlite sh tests/conformance/organization/expire-invitation.sh\" " +
        "(see tests/conformance/organization/README.md)"
    );
  }
  const full = `${cmd} ${shellQuote(id)}`;
  try {
    execSync(full, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  } catch (e) {
    const out = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim();
    throw new Error(`EXPIRE_INVITATION_CMD failed (${full}): exit ${e.status ?? e.signal}${out ? `\n${out}` : ""}`);
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export { AUTH_URL, BASE_URL, PASSWORD, newBrowser, uniqueEmail };
