// The organization plugin's organization routes (§11.6) through the official client with
// `organizationClient({ teams: { enabled: true } })`: create, check-slug, update, delete,
// get-full-organization, set-active, list. Exact shapes (metadata parsed by create and update,
// with no key when there is none; the stored text elsewhere), the session's active organization and team, refusals, and each
// route's answer to a signed-out caller. Members, invitations and teams come with their routes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { organizationClient } from "better-auth/client/plugins";
import { PASSWORD, newBrowser, postJson, uniqueEmail } from "./helpers.mjs";

const plugins = [organizationClient({ teams: { enabled: true } })];
let n = 0;
const uniqueSlug = () => `org-${Date.now().toString(36)}-${(n += 1)}-${Math.random().toString(36).slice(2, 6)}`;
const sorted = (o) => Object.keys(o).sort();

async function signedIn(name = "Org Person") {
  const b = newBrowser({ plugins });
  const email = uniqueEmail("org");
  const { error } = await b.client.signUp.email({ name, email, password: PASSWORD });
  assert.equal(error, null, JSON.stringify(error));
  return { ...b, email };
}

async function activeOf(b) {
  const { data } = await b.client.getSession({ query: { disableCookieCache: true } });
  return { organization: data.session.activeOrganizationId, team: data.session.activeTeamId };
}

const ORG_KEYS = ["createdAt", "id", "logo", "metadata", "name", "slug"];
const MEMBER_KEYS = ["createdAt", "id", "organizationId", "role", "userId"];

describe("POST /organization/create and GET /organization/get-full-organization", () => {
  test("the creator owns it; it and its default team become active; metadata parsed only here", async () => {
    const b = await signedIn();
    const slug = uniqueSlug();
    const { data, error } = await b.client.organization.create({ name: "Acme", slug, metadata: { plan: "pro" } });
    assert.equal(error, null, JSON.stringify(error));
    assert.deepEqual(sorted(data), [...ORG_KEYS, "members"].sort());
    assert.deepEqual(data.metadata, { plan: "pro" });
    assert.equal(data.logo, null);
    assert.equal(data.members.length, 1);
    assert.deepEqual(sorted(data.members[0]), MEMBER_KEYS);
    assert.equal(data.members[0].role, "owner");
    assert.deepEqual(b.jar.lastSetCookies, [], "create issues no cookie");

    const full = await b.client.organization.getFullOrganization();
    assert.equal(full.error, null, JSON.stringify(full.error));
    assert.deepEqual(sorted(full.data), [...ORG_KEYS, "invitations", "members", "teams"].sort());
    assert.equal(full.data.metadata, '{"plan":"pro"}', "the stored text elsewhere");
    assert.deepEqual(full.data.invitations, []);
    assert.equal(full.data.members[0].user.email, b.email);
    assert.deepEqual(sorted(full.data.members[0].user), ["email", "id", "image", "name"]);
    assert.equal(full.data.teams.length, 1);
    const [team] = full.data.teams;
    assert.deepEqual(sorted(team), ["createdAt", "id", "memberCount", "name", "organizationId", "updatedAt"]);
    assert.equal(team.name, "Acme");
    assert.equal(team.memberCount, 1);
    assert.equal(team.updatedAt, null);
    assert.deepEqual(await activeOf(b), { organization: data.id, team: team.id });

    const limited = await b.client.organization.getFullOrganization({ query: { organizationSlug: slug, membersLimit: 1 } });
    assert.equal(limited.data.id, data.id);
  });

  test("a taken slug, keepCurrentActiveOrganization, no metadata sent → no metadata key", async () => {
    const b = await signedIn();
    const slug = uniqueSlug();
    const first = await b.client.organization.create({ name: "Acme", slug });
    const again = await b.client.organization.create({ name: "Acme", slug });
    assert.equal(again.error.status, 400);
    assert.equal(again.error.code, "ORGANIZATION_ALREADY_EXISTS");
    const kept = await b.client.organization.create({
      name: "Kept", slug: uniqueSlug(), logo: "https://l.example/x.png", keepCurrentActiveOrganization: true,
    });
    assert.equal(kept.error, null);
    assert.equal("metadata" in kept.data, false);
    assert.equal(kept.data.logo, "https://l.example/x.png");
    assert.equal((await activeOf(b)).organization, first.data.id);
    const list = await b.client.organization.list();
    assert.deepEqual(list.data.map((o) => o.id), [first.data.id, kept.data.id]);
    assert.deepEqual(sorted(list.data[1]), ORG_KEYS);
    assert.equal(list.data[1].metadata, null);
  });

  test("bad input: zod's messages, nothing created", async () => {
    const b = await signedIn();
    for (const [body, message] of [
      [{ name: "", slug: "" }, "[body.name] Too small: expected string to have >=1 characters; [body.slug] Too small: expected string to have >=1 characters"],
      [{ slug: "x" }, "[body.name] Invalid input: expected string, received undefined"],
      [{ name: "M", slug: uniqueSlug(), metadata: "x" }, "[body.metadata] Invalid input: expected record, received string"],
      [{ name: "M", slug: uniqueSlug(), metadata: null }, "[body.metadata] Invalid input: expected record, received null"],
    ]) {
      const res = await postJson(b.jar, "/organization/create", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { code: "VALIDATION_ERROR", message });
    }
    assert.deepEqual((await b.client.organization.list()).data, []);
  });
});

describe("POST /organization/check-slug", () => {
  test("free → {status: true}; taken → 400 ORGANIZATION_SLUG_ALREADY_TAKEN", async () => {
    const b = await signedIn();
    const slug = uniqueSlug();
    const free = await b.client.organization.checkSlug({ slug });
    assert.deepEqual(free.data, { status: true });
    await b.client.organization.create({ name: "Acme", slug });
    const taken = await b.client.organization.checkSlug({ slug });
    assert.equal(taken.error.status, 400);
    assert.equal(taken.error.code, "ORGANIZATION_SLUG_ALREADY_TAKEN");
  });
});

describe("POST /organization/set-active", () => {
  test("by slug, by id, re-affirmed, cleared — the session cookie is issued each time", async () => {
    const b = await signedIn();
    const a = (await b.client.organization.create({ name: "A", slug: uniqueSlug() })).data;
    const second = (await b.client.organization.create({ name: "B", slug: uniqueSlug(), keepCurrentActiveOrganization: true })).data;
    const bySlug = await b.client.organization.setActive({ organizationSlug: second.slug });
    assert.equal(bySlug.error, null, JSON.stringify(bySlug.error));
    assert.equal(bySlug.data.id, second.id);
    assert.deepEqual(sorted(bySlug.data), ORG_KEYS);
    assert.ok(b.jar.lastSetCookies.some((c) => c.includes("session_token=")), "cookie re-issued");
    assert.equal((await activeOf(b)).organization, second.id);

    const same = await postJson(b.jar, "/organization/set-active", {});
    assert.equal(same.json.id, second.id, "nothing named: the current one");
    const byId = await b.client.organization.setActive({ organizationId: a.id });
    assert.equal(byId.data.id, a.id);
    const none = await postJson(b.jar, "/organization/set-active", { organizationId: null });
    assert.equal(none.status, 200);
    assert.equal(none.json, null);
    assert.equal((await activeOf(b)).organization, null);
    const nothing = await b.client.organization.getFullOrganization();
    assert.equal(nothing.data, null, "nothing active, nothing named");
  });

  test("someone else's organization or an unknown one: refused", async () => {
    const owner = await signedIn();
    const org = (await owner.client.organization.create({ name: "A", slug: uniqueSlug() })).data;
    const other = await signedIn();
    for (const [body, status, code] of [
      [{ organizationId: org.id }, 403, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      [{ organizationId: "no-such-organization" }, 403, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      [{ organizationSlug: org.slug }, 403, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      [{ organizationSlug: "no-such-slug" }, 400, "ORGANIZATION_NOT_FOUND"],
    ]) {
      const res = await postJson(other.jar, "/organization/set-active", body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.json.code, code, JSON.stringify(body));
    }
    const full = await other.client.organization.getFullOrganization({ query: { organizationId: org.id } });
    assert.equal(full.error.status, 403);
    assert.equal(full.error.code, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    const unknown = await other.client.organization.getFullOrganization({ query: { organizationId: "no-such-organization" } });
    assert.equal(unknown.error.status, 400);
    assert.equal(unknown.error.code, "ORGANIZATION_NOT_FOUND");
    assert.equal((await activeOf(other)).organization, null);
  });
});

describe("POST /organization/update and /organization/delete", () => {
  test("update: the active one by default, metadata in the answer only when sent; slug taken refused", async () => {
    const b = await signedIn();
    const org = (await b.client.organization.create({ name: "Acme", slug: uniqueSlug() })).data;
    const other = (await b.client.organization.create({ name: "Other", slug: uniqueSlug(), keepCurrentActiveOrganization: true })).data;
    const renamed = await b.client.organization.update({ data: { name: "Acme Ltd", metadata: { plan: "max" } } });
    assert.equal(renamed.error, null, JSON.stringify(renamed.error));
    assert.equal(renamed.data.id, org.id);
    assert.deepEqual(renamed.data.metadata, { plan: "max" });
    const logo = await b.client.organization.update({ data: { logo: null } });
    assert.deepEqual(logo.data.metadata, { plan: "max" }, "parsed whenever there is some");
    assert.equal(logo.data.logo, null);
    assert.equal(logo.data.name, "Acme Ltd");
    const steal = await b.client.organization.update({ data: { slug: other.slug } });
    assert.equal(steal.error.status, 400);
    assert.equal(steal.error.code, "ORGANIZATION_SLUG_ALREADY_TAKEN");
    for (const [body, message] of [
      [{}, "[body.data] Invalid input: expected object, received undefined"],
      [{ data: { name: "" } }, "[body.data.name] Too small: expected string to have >=1 characters"],
      [{ data: { metadata: null } }, "[body.data.metadata] Invalid input: expected record, received null"],
    ]) {
      const res = await postJson(b.jar, "/organization/update", body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { code: "VALIDATION_ERROR", message });
    }
  });

  test("update and delete by a stranger: USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION; delete by the owner", async () => {
    const owner = await signedIn();
    const org = (await owner.client.organization.create({ name: "Acme", slug: uniqueSlug() })).data;
    const stranger = await signedIn();
    const update = await stranger.client.organization.update({ organizationId: org.id, data: { name: "Mine" } });
    assert.equal(update.error.status, 400);
    assert.equal(update.error.code, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    const noneActive = await stranger.client.organization.update({ data: { name: "Mine" } });
    assert.equal(noneActive.error.status, 400);
    assert.equal(noneActive.error.code, "ORGANIZATION_NOT_FOUND");
    const del = await stranger.client.organization.delete({ organizationId: org.id });
    assert.equal(del.error.status, 400);
    assert.equal(del.error.code, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");

    const deleted = await owner.client.organization.delete({ organizationId: org.id });
    assert.equal(deleted.error, null, JSON.stringify(deleted.error));
    assert.deepEqual(sorted(deleted.data), ORG_KEYS);
    assert.equal(deleted.data.name, "Acme");
    assert.deepEqual((await owner.client.organization.list()).data, []);
  });
});

describe("signed out", () => {
  test("each route's own answer", async () => {
    const b = newBrowser({ plugins });
    for (const [path, body, status, answer] of [
      ["/organization/create", { name: "A", slug: "a" }, 401, null],
      ["/organization/delete", { organizationId: "x" }, 401, null],
      ["/organization/update", { data: { name: "x" } }, 401, { message: "User not found" }],
      ["/organization/check-slug", { slug: "a" }, 401, { message: "Unauthorized", code: "UNAUTHORIZED" }],
      ["/organization/set-active", {}, 401, { message: "Unauthorized", code: "UNAUTHORIZED" }],
    ]) {
      const res = await postJson(b.jar, path, body);
      assert.equal(res.status, status, path);
      if (answer === null) assert.equal(res.text, "", `${path}: an empty body`);
      else assert.deepEqual(res.json, answer, path);
    }
    for (const call of [() => b.client.organization.list(), () => b.client.organization.getFullOrganization()]) {
      const { error } = await call();
      assert.equal(error.status, 401);
      assert.equal(error.code, "UNAUTHORIZED");
    }
  });
});
