// The organization plugin's invitations (§11.8) and members (§11.7) through the official client
// with `organizationClient({ teams: { enabled: true } })`: an owner invites (the mail's link is
// `<base>/accept-invitation/<id>`, on Gatehouse with `?token=<token>`), the recipient accepts
// (and becomes a member, the organization their active one), rejects; cancel, get, list; then
// member lists, roles with the owner rules, removal and leaving, has-permission. Mails are read
// from the server's mail log (reference, MAIL_LOG) or dev mailbox (Gatehouse). Gatehouse lets an
// unverified recipient answer only with the link's token (INVITATION_REQUIRE_EMAIL_VERIFICATION,
// on by default; better-auth's default is off): the client passes it as an extra field.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { organizationClient } from "better-auth/client/plugins";
import { GATEHOUSE, PASSWORD, newBrowser, postJson, uniqueEmail } from "./helpers.mjs";
import { latestMail } from "./mail.mjs";
import { answerOf, invitationLink } from "./organization/common.mjs";

const plugins = [organizationClient({ teams: { enabled: true } })];
let n = 0;
const uniqueSlug = () => `inv-${Date.now().toString(36)}-${(n += 1)}-${Math.random().toString(36).slice(2, 6)}`;
const sorted = (o) => Object.keys(o).sort();
const INVITATION_KEYS = ["createdAt", "email", "expiresAt", "id", "inviterId", "organizationId", "role", "status", "teamId"];
const MEMBER_KEYS = ["createdAt", "id", "organizationId", "role", "userId"];

async function signedIn(name) {
  const b = newBrowser({ plugins });
  const email = uniqueEmail(name.toLowerCase());
  const { data, error } = await b.client.signUp.email({ name, email, password: PASSWORD });
  assert.equal(error, null, JSON.stringify(error));
  return { ...b, email, id: data.user.id };
}

/** An owner with an active organization. */
async function ownerWithOrganization() {
  const owner = await signedIn("Owner");
  const { data, error } = await owner.client.organization.create({ name: "Acme", slug: uniqueSlug() });
  assert.equal(error, null, JSON.stringify(error));
  return { owner, organization: data };
}

/** `who` invited with `role` and accepted: a member, the organization now active for them. */
async function join(owner, who, role) {
  const invited = await owner.client.organization.inviteMember({ email: who.email, role });
  assert.equal(invited.error, null, JSON.stringify(invited.error));
  const accepted = await who.client.organization.acceptInvitation(await answerOf(who, invited.data.id));
  assert.equal(accepted.error, null, JSON.stringify(accepted.error));
  return accepted.data.member;
}

describe("invitations", () => {
  test("invite → a mail with the accept link; accept → member, active organization", async () => {
    const { owner, organization } = await ownerWithOrganization();
    const invitee = await signedIn("Invitee");
    const before = Date.now();
    const invited = await owner.client.organization.inviteMember({ email: invitee.email.toUpperCase(), role: "admin" });
    assert.equal(invited.error, null, JSON.stringify(invited.error));
    assert.deepEqual(sorted(invited.data), INVITATION_KEYS);
    assert.equal(invited.data.email, invitee.email, "lower-cased");
    assert.equal(invited.data.status, "pending");
    assert.equal(invited.data.teamId, null);
    assert.equal(invited.data.inviterId, owner.id);
    const hours = (new Date(invited.data.expiresAt) - new Date(invited.data.createdAt)) / 3600e3;
    assert.ok(Math.abs(hours - 48) < 0.01, `48 hours, not ${hours}`);
    const mail = await latestMail(invitee.email, { after: before - 1000 });
    assert.ok(mail, "an invitation mail");
    const link = invitationLink(mail);
    assert.equal(link.id, invited.data.id);
    if (GATEHOUSE) assert.match(link.token, /^[A-Za-z0-9]{32}$/, "a random token, stored hashed");
    else assert.equal(link.token, null);

    const again = await owner.client.organization.inviteMember({ email: invitee.email, role: "admin" });
    assert.equal(again.error.status, 400);
    assert.equal(again.error.code, "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
    const resent = await owner.client.organization.inviteMember({ email: invitee.email, role: "admin", resend: true });
    assert.equal(resent.data.id, invited.data.id, "the same invitation");
    assert.ok(new Date(resent.data.expiresAt) >= new Date(invited.data.expiresAt), "a new expiry");

    // The resend mailed a new link; the invitee answers from it.
    const resentMail = await latestMail(invitee.email, { after: mail });
    assert.ok(resentMail, "the resent mail");
    const answer = await answerOf(invitee, invited.data.id);
    assert.equal(answer.token ?? null, invitationLink(resentMail).token);
    if (GATEHOUSE) {
      const unproved = await invitee.client.organization.getInvitation({ query: { id: invited.data.id } });
      assert.equal(unproved.error.status, 403);
      assert.equal(unproved.error.code, "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION");
      const bare = await invitee.client.organization.acceptInvitation({ invitationId: invited.data.id });
      assert.equal(bare.error.status, 403, "an unverified address without the link's token");
      assert.equal(bare.error.code, "EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION");
      assert.equal(bare.error.message, "Email verification required before accepting or rejecting invitation");
      const stale = await invitee.client.organization.acceptInvitation({ invitationId: invited.data.id, token: link.token });
      assert.equal(stale.error?.code, "EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION", "the resent mail's link replaced the first");
    }
    const details = await invitee.client.organization.getInvitation({ query: { id: invited.data.id, ...(answer.token ? { token: answer.token } : {}) } });
    assert.equal(details.error, null, JSON.stringify(details.error));
    assert.equal(details.data.organizationName, "Acme");
    assert.equal(details.data.organizationSlug, organization.slug);
    assert.equal(details.data.inviterEmail, owner.email);

    const stranger = await signedIn("Stranger");
    const notYours = await stranger.client.organization.acceptInvitation({ invitationId: invited.data.id });
    assert.equal(notYours.error.status, 403);
    assert.equal(notYours.error.code, "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
    const peek = await stranger.client.organization.getInvitation({ query: { id: invited.data.id } });
    assert.equal(peek.error.status, 403);

    const accepted = await invitee.client.organization.acceptInvitation(answer);
    assert.equal(accepted.error, null, JSON.stringify(accepted.error));
    assert.deepEqual(sorted(accepted.data), ["invitation", "member"]);
    assert.equal(accepted.data.invitation.status, "accepted");
    assert.deepEqual(sorted(accepted.data.member), MEMBER_KEYS);
    assert.equal(accepted.data.member.role, "admin");
    const { data: session } = await invitee.client.getSession({ query: { disableCookieCache: true } });
    assert.equal(session.session.activeOrganizationId, organization.id);
    assert.equal(session.user.emailVerified, GATEHOUSE, "Gatehouse: the link proved the address");
    const twice = await invitee.client.organization.acceptInvitation({ invitationId: invited.data.id });
    assert.equal(twice.error.status, 400);
    assert.equal(twice.error.code, "INVITATION_NOT_FOUND");
  });

  test("reject, cancel, the lists, and what invite-member refuses", async () => {
    const { owner, organization } = await ownerWithOrganization();
    const invitee = await signedIn("Invitee");
    const toReject = (await owner.client.organization.inviteMember({ email: invitee.email, role: "member" })).data;
    const rejected = await invitee.client.organization.rejectInvitation(await answerOf(invitee, toReject.id));
    assert.equal(rejected.error, null, JSON.stringify(rejected.error));
    assert.equal(rejected.data.invitation.status, "rejected");
    assert.equal(rejected.data.member, null);
    const rejectAgain = await postJson(invitee.jar, "/organization/reject-invitation", { invitationId: toReject.id });
    assert.equal(rejectAgain.status, 400);
    assert.deepEqual(rejectAgain.json, { message: "Invitation not found!", code: "INVITATION_NOT_FOUND" });

    const toCancel = (await owner.client.organization.inviteMember({ email: "someone@example.com", role: "member" })).data;
    const canceled = await owner.client.organization.cancelInvitation({ invitationId: toCancel.id });
    assert.equal(canceled.data.status, "canceled");
    const unknown = await owner.client.organization.cancelInvitation({ invitationId: "no-such-invitation" });
    assert.equal(unknown.error.status, 400);
    assert.equal(unknown.error.code, "INVITATION_NOT_FOUND");

    const listed = await owner.client.organization.listInvitations();
    assert.deepEqual(listed.data.map((i) => i.status).sort(), ["canceled", "rejected"]);
    const outsider = await signedIn("Outsider");
    const noOrg = await postJson(outsider.jar, "/organization/invite-member", { email: "z@example.com", role: "member" });
    assert.deepEqual([noOrg.status, noOrg.json.code], [400, "ORGANIZATION_NOT_FOUND"]);
    const notMember = await postJson(outsider.jar, "/organization/invite-member", {
      email: "z@example.com", role: "member", organizationId: organization.id,
    });
    assert.deepEqual([notMember.status, notMember.json.code], [400, "MEMBER_NOT_FOUND"]);
    for (const [body, status, answer] of [
      [{ email: "not-an-email", role: "member" }, 400, { message: "Invalid email", code: "INVALID_EMAIL" }],
      [{ email: "x@example.com", role: "nope" }, 400, { message: "ROLE_NOT_FOUND: nope" }],
      [{ email: owner.email, role: "member" }, 400, { message: "User is already a member of this organization", code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION" }],
      [{ email: "y@example.com", role: "member", teamId: "no-such-team" }, 400, { message: "Team not found", code: "TEAM_NOT_FOUND" }],
    ]) {
      const res = await postJson(owner.jar, "/organization/invite-member", body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.deepEqual(res.json, answer, JSON.stringify(body));
    }
    const list = await postJson(owner.jar, "/organization/invite-member", { email: "many@example.com", role: ["member", "admin"] });
    assert.equal(list.json.role, "member,admin");

    // An unverified address sees no invitation list (better-auth asks that always). On
    // Gatehouse the invitee is verified now: the link they rejected with proved the address.
    const mine = await outsider.client.organization.listUserInvitations();
    assert.equal(mine.error.status, 403);
    assert.equal(mine.error.code, "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION");
  });

  test("signed out: each route's own answer", async () => {
    const b = newBrowser({ plugins });
    for (const [path, body] of [
      ["/organization/invite-member", { email: "c@example.com", role: "member" }],
      ["/organization/accept-invitation", { invitationId: "x" }],
      ["/organization/reject-invitation", { invitationId: "x" }],
      ["/organization/cancel-invitation", { invitationId: "x" }],
    ]) {
      const res = await postJson(b.jar, path, body);
      assert.deepEqual([res.status, res.json], [401, { message: "Unauthorized", code: "UNAUTHORIZED" }], path);
    }
    const get = await b.client.organization.getInvitation({ query: { id: "x" } });
    assert.equal(get.error.status, 401);
    assert.equal(get.error.message, "Not authenticated");
    const mine = await b.client.organization.listUserInvitations();
    assert.equal(mine.error.status, 400);
    assert.equal(mine.error.message, "Missing session headers, or email query parameter.");
  });
});

describe("members", () => {
  test("list-members: users, total, paging, sorting, filters", async () => {
    const { owner } = await ownerWithOrganization();
    const admin = await signedIn("Ada");
    const member = await signedIn("Max");
    await join(owner, admin, "admin");
    await join(owner, member, "member");
    const all = await owner.client.organization.listMembers();
    assert.equal(all.error, null, JSON.stringify(all.error));
    assert.deepEqual(sorted(all.data), ["members", "total"]);
    assert.equal(all.data.total, 3);
    assert.deepEqual(all.data.members.map((m) => m.user.name), ["Owner", "Ada", "Max"]);
    assert.deepEqual(sorted(all.data.members[0].user), ["email", "id", "image", "name"]);
    const page = await owner.client.organization.listMembers({
      query: { limit: 1, offset: 1, sortBy: "createdAt", sortDirection: "desc" },
    });
    assert.equal(page.data.total, 3);
    assert.deepEqual(page.data.members.map((m) => m.user.name), ["Ada"]);
    const admins = await owner.client.organization.listMembers({
      query: { filterField: "role", filterValue: "admin", filterOperator: "eq" },
    });
    assert.deepEqual([admins.data.total, admins.data.members[0].user.name], [1, "Ada"]);

    const me = await admin.client.organization.getActiveMember();
    assert.equal(me.data.user.email, admin.email);
    const role = await admin.client.organization.getActiveMemberRole();
    assert.deepEqual(role.data, { role: "admin" });
    const theirs = await admin.client.organization.getActiveMemberRole({ query: { userId: owner.id } });
    assert.deepEqual(theirs.data, { role: "owner" });
    const outsider = await signedIn("Sid");
    const none = await outsider.client.organization.listMembers();
    assert.deepEqual([none.error.status, none.error.code], [400, "NO_ACTIVE_ORGANIZATION"]);
  });

  test("roles: the owner rules, ROLE_NOT_FOUND, the new role on the next request, has-permission", async () => {
    const { owner, organization } = await ownerWithOrganization();
    const admin = await signedIn("Ada");
    const member = await signedIn("Max");
    const adminMember = await join(owner, admin, "admin");
    const plainMember = await join(owner, member, "member");
    const ownerMember = (await owner.client.organization.getActiveMember()).data;
    const may = async (b, permissions) => (await postJson(b.jar, "/organization/has-permission", { permissions })).json;
    assert.deepEqual(await may(member, { member: ["create"] }), { error: null, success: false });
    assert.deepEqual(await may(admin, { member: ["create"] }), { error: null, success: true });
    assert.deepEqual(await may(admin, { organization: ["delete"] }), { error: null, success: false });

    for (const [b, memberId, role] of [
      [member, adminMember.id, "member"],
      [admin, ownerMember.id, "member"],
      [admin, plainMember.id, "owner"],
    ]) {
      const res = await b.client.organization.updateMemberRole({ memberId, role });
      assert.deepEqual([res.error.status, res.error.code], [403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER"]);
    }
    const unknown = await postJson(admin.jar, "/organization/update-member-role", { memberId: plainMember.id, role: "nope" });
    assert.deepEqual([unknown.status, unknown.json], [400, { code: "ROLE_NOT_FOUND", message: "ROLE_NOT_FOUND: nope" }]);
    const lastOwner = await owner.client.organization.updateMemberRole({ memberId: ownerMember.id, role: "admin" });
    assert.deepEqual([lastOwner.error.status, lastOwner.error.code], [400, "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER"]);
    const promoted = await admin.client.organization.updateMemberRole({ memberId: plainMember.id, role: ["admin", "member"] });
    assert.equal(promoted.error, null, JSON.stringify(promoted.error));
    assert.deepEqual(sorted(promoted.data), MEMBER_KEYS);
    assert.equal(promoted.data.role, "admin,member");
    assert.deepEqual(await may(member, { member: ["create"] }), { error: null, success: true }, "from the next request");

    const outsider = await signedIn("Sid");
    const foreign = await postJson(outsider.jar, "/organization/has-permission", {
      permissions: { member: ["create"] }, organizationId: organization.id,
    });
    assert.deepEqual([foreign.status, foreign.json.code], [401, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"]);
  });

  test("remove by id or email, leave, and the last owner stays", async () => {
    const { owner, organization } = await ownerWithOrganization();
    const admin = await signedIn("Ada");
    const member = await signedIn("Max");
    const adminMember = await join(owner, admin, "admin");
    await join(owner, member, "member");
    const ownerMember = (await owner.client.organization.getActiveMember()).data;

    const onlyOwner = await owner.client.organization.leave({ organizationId: organization.id });
    assert.deepEqual([onlyOwner.error.status, onlyOwner.error.code], [400, "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"]);
    const removeOwner = await admin.client.organization.removeMember({ memberIdOrEmail: ownerMember.id });
    assert.deepEqual([removeOwner.error.status, removeOwner.error.code], [400, "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"]);
    const byMember = await postJson(member.jar, "/organization/remove-member", { memberIdOrEmail: adminMember.id });
    assert.deepEqual([byMember.status, byMember.json.code], [401, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER"]);
    const nobody = await admin.client.organization.removeMember({ memberIdOrEmail: "nobody@example.com" });
    assert.deepEqual([nobody.error.status, nobody.error.code], [400, "MEMBER_NOT_FOUND"]);

    const byEmail = await admin.client.organization.removeMember({ memberIdOrEmail: member.email });
    assert.equal(byEmail.error, null, JSON.stringify(byEmail.error));
    assert.deepEqual(sorted(byEmail.data), ["member"]);
    assert.equal(byEmail.data.member.user.email, member.email, "named by email: with its user");
    const left = await admin.client.organization.leave({ organizationId: organization.id });
    assert.equal(left.error, null, JSON.stringify(left.error));
    assert.equal(left.data.id, adminMember.id);
    const gone = await admin.client.organization.leave({ organizationId: organization.id });
    assert.deepEqual([gone.error.status, gone.error.code], [400, "MEMBER_NOT_FOUND"]);
    assert.equal((await owner.client.organization.listMembers()).data.total, 1);
  });

  test("signed out: UNAUTHORIZED", async () => {
    const b = newBrowser({ plugins });
    for (const call of [
      () => b.client.organization.listMembers(),
      () => b.client.organization.getActiveMember(),
      () => b.client.organization.getActiveMemberRole(),
      () => b.client.organization.leave({ organizationId: "x" }),
      () => b.client.organization.removeMember({ memberIdOrEmail: "x" }),
      () => b.client.organization.updateMemberRole({ memberId: "x", role: "admin" }),
    ]) {
      const { error } = await call();
      assert.deepEqual([error.status, error.code], [401, "UNAUTHORIZED"]);
    }
    // add-member is server-side only.
    const add = await postJson(b.jar, "/organization/add-member", { userId: "x", role: "member" });
    assert.equal(add.status, 404);
  });
});
