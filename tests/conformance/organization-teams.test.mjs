// The organization plugin's team routes (§11.9) through the official client with
// `organizationClient({ teams: { enabled: true } })`: create-team, update-team, remove-team,
// list-teams, set-active-team, list-user-teams, list-team-members, add-team-member,
// remove-team-member, plus the team parts of invitations (`teamId` on invite-member, joining the
// team on accept) and members (remove-member, organization deletion). Exact Team and TeamMember
// shapes (memberCount hidden; only get-full-organization shows it), list orders, who may do what
// (owner, admin, plain member, stranger) with each route's own code, the session's activeTeamId
// and its cookie, and each route's answer to a signed-out caller. Invitation mails are read from
// the server's mail log (reference, MAIL_LOG) or dev mailbox (Gatehouse).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { GATEHOUSE, newBrowser } from "./helpers.mjs";
import {
  FULL_ORG_TEAM_KEYS,
  ID_RE,
  INVITATION_KEYS,
  ISO_RE,
  MESSAGES,
  TEAM_KEYS,
  TEAM_MEMBER_KEYS,
  UNAUTHORIZED,
  accept,
  activeOf,
  assertEmptyError,
  assertError,
  assertJson,
  assertKeys,
  assertSessionCookieReissued,
  assertValidation,
  call,
  createOrg,
  get,
  invite,
  join,
  mailTo,
  invitationLink,
  acceptFromMail,
  ok,
  orgWithStaff,
  ownerWithOrg,
  plugins,
  post,
  signUp,
  sleep,
  teamsOf,
} from "./organization/common.mjs";

/** A client answer that is an error of the table: data null, status, code and message. */
function assertClientError(res, status, code, what) {
  assert.equal(res.data, null, `${what}: no data, got ${JSON.stringify(res.data)}`);
  assert.ok(res.error, `${what}: an error`);
  assert.deepEqual(
    { status: res.error.status, code: res.error.code, message: res.error.message },
    { status, code, message: MESSAGES[code] },
    `${what}: ${JSON.stringify(res.error)}`
  );
}

/** A client answer without error; returns its data. */
function clientOk(res, what) {
  assert.equal(res.error, null, `${what}: ${JSON.stringify(res.error)}`);
  return res.data;
}

/** A Team exactly as the team routes send it (raw JSON): keys, ids, ISO dates. */
function assertTeam(t, { name, organizationId, updated }, what) {
  assertKeys(t, TEAM_KEYS, what);
  assert.match(t.id, ID_RE, `${what}: id`);
  assert.equal(t.name, name, `${what}: name`);
  assert.equal(t.organizationId, organizationId, `${what}: organizationId`);
  assert.match(t.createdAt, ISO_RE, `${what}: createdAt`);
  if (updated) assert.match(t.updatedAt, ISO_RE, `${what}: updatedAt`);
  else assert.equal(t.updatedAt, null, `${what}: updatedAt`);
}

/** A TeamMember exactly as sent (raw JSON). */
function assertTeamMember(m, { teamId, userId }, what) {
  assertKeys(m, TEAM_MEMBER_KEYS, what);
  assert.match(m.id, ID_RE, `${what}: id`);
  assert.equal(m.teamId, teamId, `${what}: teamId`);
  assert.equal(m.userId, userId, `${what}: userId`);
  assert.match(m.createdAt, ISO_RE, `${what}: createdAt`);
}

/** The organization's teams with memberCount, from get-full-organization (as `u`). */
async function fullTeams(u, organizationId) {
  const full = ok(await get(u, "/organization/get-full-organization", { organizationId }), "get-full-organization");
  for (const t of full.teams) assertKeys(t, FULL_ORG_TEAM_KEYS, "a team of get-full-organization");
  return full.teams;
}

/** Raw list of a team's members as `u` (ids of their users, in list order). */
async function teamUserIds(u, teamId) {
  return ok(await get(u, "/organization/list-team-members", { teamId }), "list-team-members").map((m) => m.userId);
}

/** `u` (with team:create there) creates a team named `name` in `organizationId` (the active organization if undefined). */
async function createTeam(u, organizationId, name) {
  return ok(await post(u, "/organization/create-team", { name, organizationId }), `create-team ${name}`);
}

/**
 * `u`'s active organization and team once they are `expected`. Gatehouse clears an active
 * team that no longer applies (a removed team, another organization made active, one left or
 * deleted) where better-auth leaves it stale; a session that is not the caller's learns it
 * from an event, so it is awaited briefly.
 */
async function activeBecomes(u, expected, what) {
  let active;
  for (let i = 0; i < 40; i += 1) {
    active = await activeOf(u);
    if (active.organization === expected.organization && active.team === expected.team) return;
    await sleep(50);
  }
  assert.deepEqual(active, expected, what);
}

/** `u` puts `userId` into `teamId`. */
async function addToTeam(u, teamId, userId, organizationId) {
  return ok(await post(u, "/organization/add-team-member", { teamId, userId, organizationId }), "add-team-member");
}

describe("create-team, update-team, list-teams", () => {
  test("the owner creates teams: Team keys (no memberCount), updatedAt set; list-teams in creation order, the default first", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    assertTeam(defaultTeam, { name: org.name, organizationId: org.id, updated: false }, "the default team");

    // Through the client: dates come back as Date objects.
    const viaClient = clientOk(await owner.client.organization.createTeam({ name: "Design" }), "createTeam");
    assert.deepEqual(Object.keys(viaClient).sort(), TEAM_KEYS);
    assert.equal(viaClient.organizationId, org.id, "the active organization by default");
    assert.ok(viaClient.createdAt instanceof Date && viaClient.updatedAt instanceof Date, "both dates set");
    assert.deepEqual(owner.jar.lastSetCookies, [], "create-team sets no cookie");

    // Raw: exact wire shape.
    const raw = await createTeam(owner, org.id, "Sales");
    assertTeam(raw, { name: "Sales", organizationId: org.id, updated: true }, "create-team");
    // create-team sets both dates to "now" (two `new Date()` calls: equal, at most 1 ms apart).
    const skew = Date.parse(raw.updatedAt) - Date.parse(raw.createdAt);
    assert.ok(skew >= 0 && skew <= 1, `created: updatedAt = createdAt (${raw.createdAt} / ${raw.updatedAt})`);
    // zod's z.string() without min(1): better-auth accepts an empty name (the protocol says
    // "req"). Gatehouse asks for one character at least (a team needs a name) and makes none.
    const empty = await post(owner, "/organization/create-team", { name: "" });
    if (GATEHOUSE) assertValidation(empty, "[body.name] Too small: expected string to have >=1 characters", "create-team empty name");
    else assert.equal(ok(empty, "create-team empty name").name, "");
    // Unknown keys (and the hidden memberCount) are dropped by the schema.
    const extra = ok(await post(owner, "/organization/create-team", { name: "Extra", memberCount: 7, foo: 1 }), "create-team extra keys");
    assertTeam(extra, { name: "Extra", organizationId: org.id, updated: true }, "create-team extra keys");

    const listed = clientOk(await owner.client.organization.listTeams(), "listTeams");
    const names = [org.name, "Design", "Sales", ...(GATEHOUSE ? [] : [""]), "Extra"];
    assert.deepEqual(listed.map((t) => t.name), names, "creation order, default first");
    const rawList = ok(await get(owner, "/organization/list-teams"), "list-teams");
    assert.deepEqual(rawList[0], defaultTeam, "the default team as listed before");
    assert.deepEqual(rawList[2], raw, "the same object create-team sent");
    for (const t of rawList) assertKeys(t, TEAM_KEYS, "listed team");

    // memberCount only in get-full-organization: the creator is in the default team only.
    const counts = await fullTeams(owner, org.id);
    assert.deepEqual(counts.map((t) => [t.name, t.memberCount]), names.map((n, i) => [n, i === 0 ? 1 : 0]));
    assert.deepEqual(await teamUserIds(owner, defaultTeam.id), [owner.user.id]);
    const creatorNotInNew = await get(owner, "/organization/list-team-members", { teamId: raw.id });
    assertError(creatorNotInNew, 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "the creator of a team is not put in it");

    // A second organization, not active: named by organizationId.
    const other = await createOrg(owner, { name: "Other", keepCurrentActiveOrganization: true });
    const elsewhere = await createTeam(owner, other.id, "Ops");
    assert.equal(elsewhere.organizationId, other.id);
    assert.deepEqual((await teamsOf(owner, other.id)).map((t) => t.name), ["Other", "Ops"]);
    assert.equal((await activeOf(owner)).organization, org.id, "create-team changes no active organization");

    for (const [body, message] of [
      [{}, "[body.name] Invalid input: expected string, received undefined"],
      [{ name: 5 }, "[body.name] Invalid input: expected string, received number"],
      [{ name: null }, "[body.name] Invalid input: expected string, received null"],
    ]) {
      assertValidation(await post(owner, "/organization/create-team", body), message, `create-team ${JSON.stringify(body)}`);
    }
  });

  test("update-team: new name and updatedAt; data.organizationId names the organization; TEAM_NOT_FOUND; bad input", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const other = await createOrg(owner, { name: "Other", keepCurrentActiveOrganization: true });
    const [otherDefault] = await teamsOf(owner, other.id);
    await sleep(5);

    const renamed = clientOk(
      await owner.client.organization.updateTeam({ teamId: defaultTeam.id, data: { name: "Renamed" } }),
      "updateTeam"
    );
    assert.deepEqual(Object.keys(renamed).sort(), TEAM_KEYS);
    assert.equal(renamed.name, "Renamed");
    assert.ok(renamed.updatedAt instanceof Date, "updatedAt set by the update");
    const [listed] = await teamsOf(owner, org.id);
    assertTeam(listed, { name: "Renamed", organizationId: org.id, updated: true }, "listed after update");
    assert.equal(listed.createdAt, defaultTeam.createdAt, "createdAt kept");
    assert.ok(Date.parse(listed.updatedAt) > Date.parse(defaultTeam.createdAt), "updatedAt is the update's time");

    await sleep(5);
    const again = ok(await post(owner, "/organization/update-team", { teamId: listed.id, data: { name: "Again" } }), "update-team");
    assertTeam(again, { name: "Again", organizationId: org.id, updated: true }, "update-team answer");
    assert.ok(Date.parse(again.updatedAt) > Date.parse(listed.updatedAt), "updatedAt moves on each update");
    // data: {} (or only unknown keys) is an update too: only updatedAt changes.
    await sleep(5);
    const nothing = ok(await post(owner, "/organization/update-team", { teamId: listed.id, data: {} }), "update-team {}");
    assertTeam(nothing, { name: "Again", organizationId: org.id, updated: true }, "update-team {}");
    assert.ok(Date.parse(nothing.updatedAt) > Date.parse(again.updatedAt), "updatedAt moves on an empty update");
    const unknownKeys = ok(await post(owner, "/organization/update-team", { teamId: listed.id, data: { memberCount: 9, foo: 1 } }), "update-team unknown keys");
    assertTeam(unknownKeys, { name: "Again", organizationId: org.id, updated: true }, "update-team unknown keys");
    assert.equal((await fullTeams(owner, org.id))[0].memberCount, 1, "memberCount is not an input");

    // The other organization's team: not found through the active organization, found when named.
    const foreign = await post(owner, "/organization/update-team", { teamId: otherDefault.id, data: { name: "X" } });
    assertError(foreign, 400, "TEAM_NOT_FOUND", "a team of another organization");
    const named = ok(
      await post(owner, "/organization/update-team", { teamId: otherDefault.id, data: { name: "X", organizationId: other.id } }),
      "update-team with data.organizationId"
    );
    assertTeam(named, { name: "X", organizationId: other.id, updated: true }, "the other organization's team");
    assertError(await post(owner, "/organization/update-team", { teamId: "no-such-team", data: { name: "X" } }), 400, "TEAM_NOT_FOUND", "unknown team");

    for (const [body, message] of [
      [{ teamId: listed.id, data: { name: "" } }, "[body.data.name] Too small: expected string to have >=1 characters"],
      [{ teamId: listed.id }, "[body.data] Invalid input: expected object, received undefined"],
      [{ data: { name: "Y" } }, "[body.teamId] Invalid input: expected string, received undefined"],
    ]) {
      assertValidation(await post(owner, "/organization/update-team", body), message, `update-team ${JSON.stringify(body)}`);
    }
  });

  test("who may: an admin creates, updates and removes; a plain member only lists; a stranger gets each route's own code", async () => {
    const { owner, org, team: defaultTeam, admin, member } = await orgWithStaff();
    const byAdmin = clientOk(await admin.client.organization.createTeam({ name: "Admins'" }), "admin createTeam");
    assert.equal(byAdmin.organizationId, org.id);
    const renamed = clientOk(await admin.client.organization.updateTeam({ teamId: byAdmin.id, data: { name: "Renamed" } }), "admin updateTeam");
    assert.equal(renamed.name, "Renamed");

    assertError(await post(member, "/organization/create-team", { name: "Mine" }), 403, "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION", "member create-team");
    assertClientError(await member.client.organization.createTeam({ name: "Mine" }), 403, "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION", "member createTeam");
    assertError(
      await post(member, "/organization/update-team", { teamId: byAdmin.id, data: { name: "Mine" } }),
      403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM", "member update-team"
    );
    assertError(
      await post(member, "/organization/remove-team", { teamId: byAdmin.id }),
      403, "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION", "member remove-team"
    );
    const memberList = clientOk(await member.client.organization.listTeams(), "member listTeams");
    assert.deepEqual(memberList.map((t) => t.id), [defaultTeam.id, byAdmin.id], "any member lists the teams");

    const stranger = await signUp("stranger", "Stranger");
    for (const [path, body, status, code] of [
      ["/organization/create-team", { name: "S" }, 400, "NO_ACTIVE_ORGANIZATION"],
      ["/organization/create-team", { name: "S", organizationId: org.id }, 403, "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION"], // sic
      ["/organization/create-team", { name: "S", organizationId: "no-such-organization" }, 403, "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION"],
      ["/organization/update-team", { teamId: defaultTeam.id, data: { name: "S" } }, 400, "NO_ACTIVE_ORGANIZATION"],
      ["/organization/update-team", { teamId: defaultTeam.id, data: { name: "S", organizationId: org.id } }, 403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM"],
      ["/organization/remove-team", { teamId: byAdmin.id }, 400, "NO_ACTIVE_ORGANIZATION"],
      ["/organization/remove-team", { teamId: byAdmin.id, organizationId: org.id }, 403, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM"],
    ]) {
      assertError(await post(stranger, path, body), status, code, `stranger ${path} ${JSON.stringify(body)}`);
    }
    assertError(await get(stranger, "/organization/list-teams"), 400, "NO_ACTIVE_ORGANIZATION", "stranger list-teams");
    assertError(
      await get(stranger, "/organization/list-teams", { organizationId: org.id }),
      403, "YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION", "stranger list-teams ?organizationId"
    );
    assertClientError(
      await stranger.client.organization.listTeams({ query: { organizationId: org.id } }),
      403, "YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION", "stranger listTeams"
    );
    assert.deepEqual((await teamsOf(owner, org.id)).map((t) => t.name), [org.name, "Renamed"], "nothing changed");

    const removed = await post(admin, "/organization/remove-team", { teamId: byAdmin.id });
    assertJson(removed, 200, { message: "Team removed successfully." }, "admin remove-team");
  });
});

describe("remove-team", () => {
  test("answer body; the caller's active team refused; the last team; unknown; a team of another organization", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const other = await createOrg(owner, { name: "Other", keepCurrentActiveOrganization: true });
    const [otherDefault] = await teamsOf(owner, other.id);
    const b = await createTeam(owner, org.id, "B");
    const c = await createTeam(owner, org.id, "C");
    await addToTeam(owner, c.id, owner.user.id);

    // The default team is the owner's active team (set by create).
    assert.equal((await activeOf(owner)).team, defaultTeam.id);
    assertError(await post(owner, "/organization/remove-team", { teamId: defaultTeam.id }), 403, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM", "the caller's active team");
    assertError(await post(owner, "/organization/remove-team", { teamId: "no-such-team" }), 400, "TEAM_NOT_FOUND", "unknown team");
    assertError(await post(owner, "/organization/remove-team", { teamId: otherDefault.id }), 400, "TEAM_NOT_FOUND", "a team of another organization");

    const removed = clientOk(await owner.client.organization.removeTeam({ teamId: b.id }), "removeTeam");
    assert.deepEqual(removed, { message: "Team removed successfully." });
    assert.deepEqual(owner.jar.lastSetCookies, [], "remove-team sets no cookie");
    const gone = await post(owner, "/organization/remove-team", { teamId: b.id });
    assertError(gone, 400, "TEAM_NOT_FOUND", "removed twice");

    // A team with members: its memberships go with it.
    assertJson(await post(owner, "/organization/remove-team", { teamId: c.id, organizationId: org.id }), 200, { message: "Team removed successfully." }, "remove-team C");
    assertError(await get(owner, "/organization/list-team-members", { teamId: c.id }), 400, "TEAM_NOT_FOUND", "members of a removed team");
    const mine = ok(await get(owner, "/organization/list-user-teams", { organizationId: org.id }), "list-user-teams");
    assert.deepEqual(mine.map((t) => t.id), [defaultTeam.id]);

    // The last team: refused once it is not the active team any more.
    assertJson(await post(owner, "/organization/set-active-team", { teamId: null }), 200, null, "unset the active team", { setsCookies: true });
    assertError(await post(owner, "/organization/remove-team", { teamId: defaultTeam.id }), 400, "UNABLE_TO_REMOVE_LAST_TEAM", "the last team");
    // The other organization's last team, named by organizationId (not the active organization).
    assertError(
      await post(owner, "/organization/remove-team", { teamId: otherDefault.id, organizationId: other.id }),
      400, "UNABLE_TO_REMOVE_LAST_TEAM", "the last team of a named organization"
    );
    assert.deepEqual((await teamsOf(owner, org.id)).map((t) => t.id), [defaultTeam.id]);
    assertValidation(await post(owner, "/organization/remove-team", {}), "[body.teamId] Invalid input: expected string, received undefined", "remove-team {}");
  });

  test("someone else's active team can be removed: their session keeps the stale activeTeamId", async () => {
    const { owner, org, admin } = await orgWithStaff();
    const b = await createTeam(owner, org.id, "B");
    await addToTeam(owner, b.id, admin.user.id);
    ok(await post(admin, "/organization/set-active-team", { teamId: b.id }), "admin set-active-team", { setsCookies: true });
    assertJson(await post(owner, "/organization/remove-team", { teamId: b.id }), 200, { message: "Team removed successfully." }, "owner removes the admin's active team");
    if (GATEHOUSE) {
      // Gatehouse: sessions that had the removed team active lose it (team.removed).
      await activeBecomes(admin, { organization: org.id, team: null }, "the removed team is no one's active team");
      assertError(await get(admin, "/organization/list-team-members"), 400, "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM", "no active team any more");
      assertJson(await post(admin, "/organization/set-active-team", {}), 200, null, "nothing to re-affirm");
      assertError(await post(admin, "/organization/remove-team", { teamId: b.id }), 400, "TEAM_NOT_FOUND", "removed already");
      return;
    }
    // better-auth does not clear other sessions' activeTeamId (looks like a bug, but it is the protocol).
    assert.equal((await activeOf(admin)).team, b.id, "stale activeTeamId");
    assertError(await get(admin, "/organization/list-team-members"), 400, "TEAM_NOT_FOUND", "list-team-members of the stale active team");
    assertError(await post(admin, "/organization/set-active-team", {}), 400, "TEAM_NOT_FOUND", "set-active-team re-affirming the stale team");
    assertError(await post(admin, "/organization/remove-team", { teamId: b.id }), 403, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM", "the stale active team is still 'active' for remove-team");
  });
});

describe("set-active-team", () => {
  test("set → the Team and the session cookie re-issued; omitted → the current; null → unset; refusals", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const b = await createTeam(owner, org.id, "B");
    const other = await createOrg(owner, { name: "Other", keepCurrentActiveOrganization: true });
    const [otherDefault] = await teamsOf(owner, other.id);

    assertError(await post(owner, "/organization/set-active-team", { teamId: b.id }), 403, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "not in team B");
    assertError(await post(owner, "/organization/set-active-team", { teamId: otherDefault.id }), 400, "TEAM_NOT_FOUND", "a team of another organization");
    assertError(await post(owner, "/organization/set-active-team", { teamId: "no-such-team" }), 400, "TEAM_NOT_FOUND", "unknown team");
    assert.equal((await activeOf(owner)).team, defaultTeam.id, "refusals change nothing");

    await addToTeam(owner, b.id, owner.user.id);
    const set = clientOk(await owner.client.organization.setActiveTeam({ teamId: b.id }), "setActiveTeam");
    assert.equal(set.id, b.id);
    assert.deepEqual(Object.keys(set).sort(), TEAM_KEYS);
    assert.ok(owner.jar.lastSetCookies.some((c) => c.includes("session_token=")), "cookie re-issued");
    assert.deepEqual(await activeOf(owner), { organization: org.id, team: b.id });
    const { data: session } = await owner.client.getSession({ query: { disableCookieCache: true } });
    assert.equal(session.session.activeTeamId, b.id, "get-session shows activeTeamId");

    const raw = await post(owner, "/organization/set-active-team", { teamId: defaultTeam.id });
    assertJson(raw, 200, defaultTeam, "set-active-team: the Team as list-teams has it", { setsCookies: true });
    assertSessionCookieReissued(raw, owner, "set-active-team");
    const same = await post(owner, "/organization/set-active-team", {});
    assertJson(same, 200, defaultTeam, "omitted: the current team", { setsCookies: true });
    assertSessionCookieReissued(same, owner, "set-active-team {}");
    // "" counts as omitted.
    assertJson(await post(owner, "/organization/set-active-team", { teamId: "" }), 200, defaultTeam, "teamId ''", { setsCookies: true });

    const unset = await post(owner, "/organization/set-active-team", { teamId: null });
    assertJson(unset, 200, null, "null: unset", { setsCookies: true });
    assertSessionCookieReissued(unset, owner, "set-active-team null");
    assert.deepEqual(await activeOf(owner), { organization: org.id, team: null });
    assertJson(await post(owner, "/organization/set-active-team", { teamId: null }), 200, null, "null again: nothing to unset, no cookie");
    assertJson(await post(owner, "/organization/set-active-team", {}), 200, null, "omitted with none active: null, no cookie");
    assertValidation(await post(owner, "/organization/set-active-team", { teamId: 5 }), "[body.teamId] Invalid input: expected string, received number", "teamId 5");
    // No body at all: better-auth's schema wants an object; Gatehouse reads it as {} (nothing
    // named: the current team, here none).
    const noBody = await call(owner.jar, "POST", "/organization/set-active-team");
    if (GATEHOUSE) assertJson(noBody, 200, null, "no body: as {}");
    else assertValidation(noBody, "[body] Invalid input: expected object, received undefined", "no body");

    // Without an active organization.
    ok(await post(owner, "/organization/set-active", { organizationId: null }), "set-active null", { setsCookies: true });
    assertError(await post(owner, "/organization/set-active-team", { teamId: b.id }), 400, "NO_ACTIVE_ORGANIZATION", "no active organization");
    assertClientError(await owner.client.organization.setActiveTeam({ teamId: b.id }), 400, "NO_ACTIVE_ORGANIZATION", "setActiveTeam without active org");
    assertJson(await post(owner, "/organization/set-active-team", { teamId: null }), 200, null, "null without active org or team");
  });

  test("switching the active organization: better-auth keeps the old activeTeamId, Gatehouse clears it", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const other = await createOrg(owner, { name: "Other", keepCurrentActiveOrganization: true });
    const [otherDefault] = await teamsOf(owner, other.id);
    ok(await post(owner, "/organization/set-active", { organizationId: other.id }), "set-active other", { setsCookies: true });
    if (GATEHOUSE) {
      // Gatehouse: another organization made active takes the old one's team with it.
      assert.deepEqual(await activeOf(owner), { organization: other.id, team: null });
      assertJson(await post(owner, "/organization/set-active-team", {}), 200, null, "no current team");
    } else {
      // set-active does not touch activeTeamId (the team of the previous organization stays).
      assert.deepEqual(await activeOf(owner), { organization: other.id, team: defaultTeam.id });
      assertError(await post(owner, "/organization/set-active-team", {}), 400, "TEAM_NOT_FOUND", "the current team is not in the active organization");
    }
    const set = ok(await post(owner, "/organization/set-active-team", { teamId: otherDefault.id }), "set-active-team", { setsCookies: true });
    assert.equal(set.id, otherDefault.id);
    assert.deepEqual(await activeOf(owner), { organization: other.id, team: otherDefault.id });
    assert.notEqual(org.id, other.id);
  });
});

describe("add-team-member and remove-team-member", () => {
  test("add: a TeamMember, idempotent (the same row again); refusals in their order", async () => {
    const { owner, org, team: defaultTeam, admin, member } = await orgWithStaff();
    const b = await createTeam(owner, org.id, "B");
    const foreign = await ownerWithOrg();

    const added = clientOk(await owner.client.organization.addTeamMember({ teamId: b.id, userId: member.user.id }), "addTeamMember");
    assert.deepEqual(Object.keys(added).sort(), TEAM_MEMBER_KEYS);
    assert.ok(added.createdAt instanceof Date);
    const raw = ok(await post(owner, "/organization/add-team-member", { teamId: b.id, userId: member.user.id }), "add-team-member again");
    assertTeamMember(raw, { teamId: b.id, userId: member.user.id }, "add-team-member again");
    assert.equal(raw.id, added.id, "idempotent: the existing membership");
    assert.equal(raw.createdAt, added.createdAt.toISOString(), "the same row");
    const byAdmin = ok(await post(admin, "/organization/add-team-member", { teamId: b.id, userId: admin.user.id, organizationId: org.id }), "admin adds");
    assertTeamMember(byAdmin, { teamId: b.id, userId: admin.user.id }, "added by an admin");
    assert.deepEqual(await teamUserIds(member, b.id), [member.user.id, admin.user.id], "insertion order");
    const counts = await fullTeams(owner, org.id);
    assert.deepEqual(counts.map((t) => [t.id, t.memberCount]), [[defaultTeam.id, 1], [b.id, 2]], "memberCount counts once");

    const stranger = await signUp("stranger", "Stranger");
    for (const [who, body, status, code, what] of [
      [member, { teamId: b.id, userId: member.user.id }, 403, "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER", "a plain member"],
      [owner, { teamId: b.id, userId: stranger.user.id }, 400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "a user outside the organization"],
      [owner, { teamId: b.id, userId: "no-such-user" }, 400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "an unknown user"],
      [owner, { teamId: "no-such-team", userId: member.user.id }, 400, "TEAM_NOT_FOUND", "an unknown team"],
      [owner, { teamId: foreign.team.id, userId: member.user.id }, 400, "TEAM_NOT_FOUND", "a team of another organization"],
      // the target-member check comes before the team lookup
      [owner, { teamId: "no-such-team", userId: "no-such-user" }, 400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "unknown user and team"],
      [stranger, { teamId: b.id, userId: stranger.user.id }, 400, "NO_ACTIVE_ORGANIZATION", "a stranger, no organization"],
      [stranger, { teamId: b.id, userId: stranger.user.id, organizationId: org.id }, 400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "a stranger naming it"],
      // userId is z.coerce.string(): a number or null becomes a string (and is nobody)
      [owner, { teamId: b.id, userId: 5 }, 400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "userId 5"],
      [owner, { teamId: b.id, userId: null }, 400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "userId null"],
    ]) {
      assertError(await post(who, "/organization/add-team-member", body), status, code, `add-team-member: ${what}`);
    }
    assertClientError(
      await member.client.organization.addTeamMember({ teamId: b.id, userId: member.user.id }),
      403, "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER", "member addTeamMember"
    );
    for (const [body, message] of [
      [{ userId: member.user.id }, "[body.teamId] Invalid input: expected string, received undefined"],
      [{ teamId: b.id }, "[body.userId] Invalid input: expected nonoptional, received undefined"],
    ]) {
      assertValidation(await post(owner, "/organization/add-team-member", body), message, `add-team-member ${JSON.stringify(body)}`);
      assertValidation(await post(owner, "/organization/remove-team-member", body), message, `remove-team-member ${JSON.stringify(body)}`);
    }
  });

  test("remove: the message; not in the team; a plain member refused; memberCount follows", async () => {
    const { owner, org, team: defaultTeam, admin, member } = await orgWithStaff();
    const b = await createTeam(owner, org.id, "B");
    await addToTeam(owner, b.id, member.user.id);
    await addToTeam(owner, b.id, admin.user.id);

    ok(await post(member, "/organization/set-active-team", { teamId: b.id }), "member's active team B", { setsCookies: true });
    assertError(
      await post(member, "/organization/remove-team-member", { teamId: b.id, userId: admin.user.id }),
      403, "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER", "a plain member"
    );
    assertError(
      await post(member, "/organization/remove-team-member", { teamId: b.id, userId: member.user.id }),
      403, "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER", "a plain member, themselves"
    );
    const removed = clientOk(await owner.client.organization.removeTeamMember({ teamId: b.id, userId: member.user.id }), "removeTeamMember");
    assert.deepEqual(removed, { message: "Team member removed successfully." });
    assert.deepEqual(owner.jar.lastSetCookies, [], "remove-team-member sets no cookie");
    assert.deepEqual(await teamUserIds(admin, b.id), [admin.user.id]);
    assertError(
      await post(owner, "/organization/remove-team-member", { teamId: b.id, userId: member.user.id }),
      400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "removed twice"
    );
    // The removed user's session keeps B as its active team (not cleared: the protocol).
    assert.deepEqual(await activeOf(member), { organization: org.id, team: b.id });
    assertError(await get(member, "/organization/list-team-members"), 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "the stale active team");
    assertError(await post(member, "/organization/set-active-team", {}), 403, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "re-affirming the stale active team");
    assertError(
      await post(owner, "/organization/remove-team-member", { teamId: defaultTeam.id, userId: admin.user.id }),
      400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "an org member not in that team"
    );
    const stranger = await signUp("stranger", "Stranger");
    for (const [body, code, what] of [
      [{ teamId: b.id, userId: stranger.user.id }, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "a user outside the organization"],
      [{ teamId: "no-such-team", userId: admin.user.id }, "TEAM_NOT_FOUND", "an unknown team"],
    ]) {
      assertError(await post(owner, "/organization/remove-team-member", body), 400, code, `remove-team-member: ${what}`);
    }
    // An admin has member:delete: may remove themselves.
    assertJson(
      await post(admin, "/organization/remove-team-member", { teamId: b.id, userId: admin.user.id, organizationId: org.id }),
      200, { message: "Team member removed successfully." }, "an admin removes"
    );
    const counts = await fullTeams(owner, org.id);
    assert.deepEqual(counts.map((t) => [t.id, t.memberCount]), [[defaultTeam.id, 1], [b.id, 0]], "memberCount back to 0");
    assertError(await get(admin, "/organization/list-team-members", { teamId: b.id }), 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "the admin left team B");
  });
});

describe("list-team-members", () => {
  test("the active team by default; none active; caller not in the team; unknown team", async () => {
    const { owner, org, team: defaultTeam, admin, member } = await orgWithStaff();
    const mine = clientOk(await owner.client.organization.listTeamMembers(), "listTeamMembers");
    assert.equal(mine.length, 1);
    assert.deepEqual(Object.keys(mine[0]).sort(), TEAM_MEMBER_KEYS);
    const raw = ok(await get(owner, "/organization/list-team-members"), "list-team-members");
    assert.equal(raw.length, 1);
    assertTeamMember(raw[0], { teamId: defaultTeam.id, userId: owner.user.id }, "the owner in the default team");

    await addToTeam(owner, defaultTeam.id, member.user.id);
    await addToTeam(owner, defaultTeam.id, admin.user.id);
    const listed = ok(await get(owner, "/organization/list-team-members", { teamId: defaultTeam.id }), "list-team-members ?teamId");
    assert.deepEqual(ok(await get(owner, "/organization/list-team-members", { teamId: "" }), "?teamId= (empty)"), listed, "an empty teamId: the active team");
    assert.deepEqual(listed.map((m) => m.userId), [owner.user.id, member.user.id, admin.user.id], "insertion order");
    for (const m of listed) assertTeamMember(m, { teamId: defaultTeam.id, userId: m.userId }, "listed");
    // A plain member in the team may list it too.
    assert.deepEqual(await teamUserIds(member, defaultTeam.id), [owner.user.id, member.user.id, admin.user.id]);

    // Joined without a team: no active team.
    assert.equal((await activeOf(member)).team, null);
    assertError(await get(member, "/organization/list-team-members"), 400, "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM", "none active");
    assertClientError(await member.client.organization.listTeamMembers(), 400, "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM", "listTeamMembers none active");

    const b = await createTeam(owner, org.id, "B");
    assertError(await get(member, "/organization/list-team-members", { teamId: b.id }), 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "an org member not in the team");
    assertError(await get(owner, "/organization/list-team-members", { teamId: b.id }), 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "even the owner");
    assertError(await get(owner, "/organization/list-team-members", { teamId: "no-such-team" }), 400, "TEAM_NOT_FOUND", "unknown team");
    const stranger = await signUp("stranger", "Stranger");
    assertError(await get(stranger, "/organization/list-team-members", { teamId: defaultTeam.id }), 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "a stranger");
    assertError(await get(stranger, "/organization/list-team-members"), 400, "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM", "a stranger, nothing active");
  });
});

describe("list-user-teams", () => {
  test("self across every organization, ?organizationId; another user's by an owner or admin; a plain member refused", async () => {
    const a = await ownerWithOrg({ name: "Alpha" });
    const z = await ownerWithOrg({ name: "Zulu" });
    const a2 = await createTeam(a.owner, a.org.id, "Alpha 2");
    // a's owner joins Zulu as a member, into a team of Zulu, by invitation; then into Alpha 2.
    const zTeam = await createTeam(z.owner, z.org.id, "Zulu B");
    const inv = await invite(z.owner, z.org.id, a.owner.email, "member", { teamId: zTeam.id });
    await accept(a.owner, inv.id);
    await addToTeam(a.owner, a2.id, a.owner.user.id, a.org.id);
    const { u: plain } = await join(z.owner, z.org, "member");
    const { u: zAdmin } = await join(z.owner, z.org, "admin");

    const all = clientOk(await a.owner.client.organization.listUserTeams(), "listUserTeams");
    // Order: when the user joined each team (Alpha 2 was created before Zulu B but joined after).
    assert.deepEqual(all.map((t) => t.id), [a.team.id, zTeam.id, a2.id], "teams of every organization, in membership order");
    assert.deepEqual(Object.keys(all[0]).sort(), TEAM_KEYS);
    const raw = ok(await get(a.owner, "/organization/list-user-teams"), "list-user-teams");
    assert.deepEqual(raw, [a.team, zTeam, a2], "Team objects as list-teams sends them");
    const onlyZ = ok(await get(a.owner, "/organization/list-user-teams", { organizationId: z.org.id }), "?organizationId");
    assert.deepEqual(onlyZ.map((t) => t.id), [zTeam.id]);
    const onlyA = clientOk(await a.owner.client.organization.listUserTeams({ query: { organizationId: a.org.id } }), "listUserTeams ?organizationId");
    assert.deepEqual(onlyA.map((t) => t.id), [a.team.id, a2.id]);
    // userId = self is the self case.
    assert.deepEqual(ok(await get(a.owner, "/organization/list-user-teams", { userId: a.owner.user.id }), "userId self").map((t) => t.id), [a.team.id, zTeam.id, a2.id]);

    // Another user's teams, in the caller's active organization (or the named one) only.
    const byOwner = ok(await get(z.owner, "/organization/list-user-teams", { userId: a.owner.user.id }), "owner lists another's");
    assert.deepEqual(byOwner.map((t) => t.id), [zTeam.id], "only the active organization's teams");
    const byAdmin = clientOk(await zAdmin.client.organization.listUserTeams({ query: { userId: a.owner.user.id, organizationId: z.org.id } }), "admin lists another's");
    assert.deepEqual(byAdmin.map((t) => t.id), [zTeam.id]);
    assertError(await get(plain, "/organization/list-user-teams", { userId: a.owner.user.id }), 403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", "a plain member");
    assertError(
      await get(z.owner, "/organization/list-user-teams", { userId: a.owner.user.id, organizationId: a.org.id }),
      403, "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION", "another user in an organization the caller is not in"
    );
    assertError(
      await get(z.owner, "/organization/list-user-teams", { organizationId: a.org.id }),
      403, "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION", "self in an organization the caller is not in"
    );
    const stranger = await signUp("stranger", "Stranger");
    assertError(
      await get(z.owner, "/organization/list-user-teams", { userId: stranger.user.id }),
      400, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "a target outside the organization"
    );
    assertError(
      await get(stranger, "/organization/list-user-teams", { userId: a.owner.user.id }),
      400, "NO_ACTIVE_ORGANIZATION", "another user, no organization"
    );
    assertJson(await get(stranger, "/organization/list-user-teams"), 200, [], "self without any team");
    assert.deepEqual(ok(await get(plain, "/organization/list-user-teams"), "plain self"), [], "joined without a team: none");
  });
});

describe("invitations with teamId", () => {
  test("invite into a team → teamId on the invitation; accept → in the team, active team, cookie; foreign and bad team ids", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const b = await createTeam(owner, org.id, "B");
    const foreign = await ownerWithOrg();
    const invitee = await signUp("invitee", "Invitee");

    const before = Date.now();
    const invited = clientOk(await owner.client.organization.inviteMember({ email: invitee.email, role: "member", teamId: b.id }), "inviteMember");
    assert.deepEqual(Object.keys(invited).sort(), INVITATION_KEYS);
    assert.equal(invited.teamId, b.id);
    const link = invitationLink(await mailTo(invitee.email, before - 1000));
    assert.equal(link.id, invited.id, "the mail names the invitation");
    const listed = ok(await get(owner, "/organization/list-invitations"), "list-invitations");
    assert.equal(listed.find((i) => i.id === invited.id).teamId, b.id);

    for (const [body, code] of [
      [{ email: "t1@example.com", role: "member", teamId: foreign.team.id }, "TEAM_NOT_FOUND"],
      [{ email: "t2@example.com", role: "member", teamId: "no-such-team" }, "TEAM_NOT_FOUND"],
      [{ email: "t3@example.com", role: "member", teamId: [b.id, foreign.team.id] }, "TEAM_NOT_FOUND"],
      [{ email: "t4@example.com", role: "member", teamId: `${b.id},${defaultTeam.id}` }, "INVALID_TEAM_ID"],
    ]) {
      assertError(await post(owner, "/organization/invite-member", body), 400, code, `invite-member ${JSON.stringify(body.teamId)}`);
    }

    const accepted = await acceptFromMail(invitee, link.id);
    assert.equal(accepted.status, 200, accepted.text);
    assertKeys(accepted.json, ["invitation", "member"], "accept-invitation");
    assert.equal(accepted.json.invitation.teamId, b.id);
    assert.equal(accepted.json.invitation.status, "accepted");
    // Exactly one team: it becomes the active team and the session cookie is issued.
    assertSessionCookieReissued(accepted, invitee, "accept-invitation with one team");
    assert.deepEqual(await activeOf(invitee), { organization: org.id, team: b.id });
    const inTeam = clientOk(await invitee.client.organization.listTeamMembers(), "listTeamMembers of the active team");
    assert.deepEqual(inTeam.map((m) => m.userId), [invitee.user.id]);
    assert.equal(inTeam[0].teamId, b.id);

    // Two teams (an array): in both, teamId stored comma-joined, no active team set.
    const two = await signUp("two", "Two Teams");
    const inv2 = await invite(owner, org.id, two.email, "member", { teamId: [defaultTeam.id, b.id] });
    assert.equal(inv2.teamId, `${defaultTeam.id},${b.id}`);
    const acc2 = await acceptFromMail(two, inv2.id);
    assert.equal(acc2.status, 200, acc2.text);
    assert.deepEqual(acc2.setCookies, [], "more than one team: no cookie");
    assert.deepEqual(await activeOf(two), { organization: org.id, team: null });
    assert.deepEqual(ok(await get(two, "/organization/list-user-teams"), "list-user-teams").map((t) => t.id), [defaultTeam.id, b.id]);

    // No team: nothing about teams, no cookie.
    const none = await signUp("none", "No Team");
    const inv3 = await invite(owner, org.id, none.email, "member");
    assert.equal(inv3.teamId, null);
    const acc3 = await acceptFromMail(none, inv3.id);
    assert.equal(acc3.status, 200, acc3.text);
    assert.deepEqual(acc3.setCookies, [], "no team: no cookie");
    assert.deepEqual(await activeOf(none), { organization: org.id, team: null });

    const counts = await fullTeams(owner, org.id);
    assert.deepEqual(counts.map((t) => [t.id, t.memberCount]), [[defaultTeam.id, 2], [b.id, 2]]);
  });

  test("removing a team drops its id from pending invitations", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const b = await createTeam(owner, org.id, "B");
    const c = await createTeam(owner, org.id, "C");
    const onlyB = await invite(owner, org.id, "only-b@example.com", "member", { teamId: b.id });
    const bAndC = await invite(owner, org.id, "b-and-c@example.com", "member", { teamId: [b.id, c.id] });
    const cAndB = await invite(owner, org.id, "c-and-b@example.com", "member", { teamId: [c.id, b.id, defaultTeam.id] });
    assertJson(await post(owner, "/organization/remove-team", { teamId: b.id }), 200, { message: "Team removed successfully." }, "remove-team B");
    const byId = Object.fromEntries(ok(await get(owner, "/organization/list-invitations"), "list-invitations").map((i) => [i.id, i]));
    assert.equal(byId[onlyB.id].teamId, null, "its only team gone: null");
    assert.equal(byId[bAndC.id].teamId, c.id, "the rest kept");
    assert.equal(byId[cAndB.id].teamId, `${c.id},${defaultTeam.id}`, "the rest kept, in order");
    for (const i of [onlyB, bAndC, cAndB]) assert.equal(byId[i.id].status, "pending");
  });
});

describe("members leaving and organizations deleted", () => {
  test("remove-member and leave take the user out of the organization's teams (and only those)", async () => {
    const { owner, org, team: defaultTeam, admin, member } = await orgWithStaff();
    const b = await createTeam(owner, org.id, "B");
    await addToTeam(owner, defaultTeam.id, member.user.id);
    await addToTeam(owner, b.id, member.user.id);
    await addToTeam(owner, b.id, admin.user.id);
    // The member also owns an organization of their own (with its default team).
    const own = await createOrg(member, { name: "Own", keepCurrentActiveOrganization: true });
    const [ownTeam] = await teamsOf(member, own.id);
    ok(await post(member, "/organization/set-active-team", { teamId: b.id }), "member's active team", { setsCookies: true });
    ok(await post(admin, "/organization/set-active-team", { teamId: b.id }), "admin's active team", { setsCookies: true });

    ok(await post(owner, "/organization/remove-member", { memberIdOrEmail: member.email }), "remove-member");
    // Removed by someone else: the removed user's session keeps both (stale) ids.
    assert.deepEqual(await activeOf(member), { organization: org.id, team: b.id });
    assert.deepEqual(await teamUserIds(owner, defaultTeam.id), [owner.user.id], "gone from the default team");
    const inB = ok(await get(admin, "/organization/list-team-members", { teamId: b.id }), "list-team-members B");
    assert.deepEqual(inB.map((m) => m.userId), [admin.user.id], "gone from team B");
    assert.deepEqual(
      ok(await get(member, "/organization/list-user-teams"), "the removed member's teams").map((t) => t.id),
      [ownTeam.id],
      "their other organization's team stays"
    );
    const counts = await fullTeams(owner, org.id);
    assert.deepEqual(counts.map((t) => [t.id, t.memberCount]), [[defaultTeam.id, 1], [b.id, 1]]);

    ok(await post(admin, "/organization/leave", { organizationId: org.id }), "leave");
    // leave clears the active organization; better-auth keeps the active team, Gatehouse
    // clears it too (a team of an organization one is not in).
    assert.deepEqual(await activeOf(admin), { organization: null, team: GATEHOUSE ? null : b.id });
    assertError(await get(owner, "/organization/list-team-members", { teamId: b.id }), 400, "USER_IS_NOT_A_MEMBER_OF_THE_TEAM", "the owner is not in B");
    assert.deepEqual((await fullTeams(owner, org.id)).map((t) => [t.id, t.memberCount]), [[defaultTeam.id, 1], [b.id, 0]], "leave empties B");
    assertJson(await get(admin, "/organization/list-user-teams"), 200, [], "the admin is in no team");
  });

  test("deleting an organization: its teams are gone from list-user-teams", async () => {
    const { owner, org, team: defaultTeam } = await ownerWithOrg();
    const keep = await createOrg(owner, { name: "Keep", keepCurrentActiveOrganization: true });
    const [keepTeam] = await teamsOf(owner, keep.id);
    const b = await createTeam(owner, org.id, "B");
    const { u: member } = await join(owner, org, "member");
    await addToTeam(owner, b.id, member.user.id);
    assert.deepEqual(ok(await get(owner, "/organization/list-user-teams"), "before").map((t) => t.id), [defaultTeam.id, keepTeam.id]);

    ok(await post(owner, "/organization/delete", { organizationId: org.id }), "delete organization");
    // The active organization is cleared; better-auth keeps the (now deleted) active team,
    // Gatehouse clears it too.
    assert.deepEqual(await activeOf(owner), { organization: null, team: GATEHOUSE ? null : defaultTeam.id });
    assert.deepEqual(ok(await get(owner, "/organization/list-user-teams"), "after").map((t) => t.id), [keepTeam.id]);
    assertJson(await get(member, "/organization/list-user-teams"), 200, [], "the member's team went with it");
    assertError(await get(owner, "/organization/list-teams", { organizationId: org.id }), 403, "YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION", "list-teams of a deleted org");
    assertError(await get(owner, "/organization/list-team-members", { teamId: b.id }), 400, "TEAM_NOT_FOUND", "its team is gone");
  });
});

describe("signed out", () => {
  test("each team route's own answer", async () => {
    const b = newBrowser({ plugins });
    // create-team and remove-team: 401 with an EMPTY body (remove-team looks for an organization first).
    assertEmptyError(await call(b.jar, "POST", "/organization/create-team", { body: { name: "T" } }), 401, "create-team");
    assertEmptyError(await call(b.jar, "POST", "/organization/create-team", { body: { name: "T", organizationId: "x" } }), 401, "create-team with organizationId");
    // better-auth looks for the organization before the session here; Gatehouse asks for the
    // session first, as everywhere.
    const removeNoOrg = await call(b.jar, "POST", "/organization/remove-team", { body: { teamId: "t" } });
    if (GATEHOUSE) assertEmptyError(removeNoOrg, 401, "remove-team without organizationId");
    else assertError(removeNoOrg, 400, "NO_ACTIVE_ORGANIZATION", "remove-team without organizationId");
    assertEmptyError(await call(b.jar, "POST", "/organization/remove-team", { body: { teamId: "t", organizationId: "x" } }), 401, "remove-team with organizationId");
    // Body validation comes first.
    assertValidation(
      await call(b.jar, "POST", "/organization/create-team", { body: {} }),
      "[body.name] Invalid input: expected string, received undefined", "create-team {} signed out"
    );
    for (const [method, path, body] of [
      ["POST", "/organization/update-team", { teamId: "t", data: { name: "N" } }],
      ["POST", "/organization/set-active-team", { teamId: "t" }],
      ["POST", "/organization/set-active-team", { teamId: null }],
      ["POST", "/organization/add-team-member", { teamId: "t", userId: "u" }],
      ["POST", "/organization/remove-team-member", { teamId: "t", userId: "u" }],
      ["GET", "/organization/list-teams"],
      ["GET", "/organization/list-user-teams"],
      ["GET", "/organization/list-team-members"],
    ]) {
      assertJson(await call(b.jar, method, path, body ? { body } : {}), 401, UNAUTHORIZED, `${method} ${path}`);
    }
    for (const [name, run] of [
      ["listTeams", () => b.client.organization.listTeams()],
      ["listUserTeams", () => b.client.organization.listUserTeams()],
      ["listTeamMembers", () => b.client.organization.listTeamMembers()],
      ["setActiveTeam", () => b.client.organization.setActiveTeam({ teamId: "t" })],
      ["updateTeam", () => b.client.organization.updateTeam({ teamId: "t", data: { name: "N" } })],
      ["addTeamMember", () => b.client.organization.addTeamMember({ teamId: "t", userId: "u" })],
      ["removeTeamMember", () => b.client.organization.removeTeamMember({ teamId: "t", userId: "u" })],
    ]) {
      assertClientError(await run(), 401, "UNAUTHORIZED", name);
    }
    const created = await b.client.organization.createTeam({ name: "T" });
    assert.equal(created.data, null);
    assert.equal(created.error.status, 401, "createTeam: 401");
  });
});
