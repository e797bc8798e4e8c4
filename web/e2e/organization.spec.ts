import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { apiAs, expectAccessible, expectHome, mailedLink, openOrganizationSection, signIn, signUpViaApi, uniqueUser } from "./helpers";

function uniqueOrganization() {
  const id = randomUUID().slice(0, 8);
  return { name: `Acme ${id}`, slug: `acme-${id}` };
}

/** An organization made through the API by `owner`'s client, with `invitees` invited (by id). */
async function organizationWith(api: APIRequestContext, invitees: string[] = []) {
  const org = uniqueOrganization();
  const created = await api.post("/api/auth/organization/create", { data: org });
  expect(created.status(), await created.text()).toBe(200);
  const invitations: Record<string, string> = {};
  for (const email of invitees) {
    const invited = await api.post("/api/auth/organization/invite-member", { data: { email, role: "member" } });
    expect(invited.status(), await invited.text()).toBe(200);
    invitations[email] = ((await invited.json()) as { id: string }).id;
  }
  return { ...org, id: ((await created.json()) as { id: string }).id, invitations };
}

/** The organization page of the browser's active organization, after choosing it. */
async function openOrganization(page: Page, name: string) {
  await page.goto("/organization/");
  const open = page.getByRole("button", { name: `Open ${name}` });
  const heading = page.getByRole("heading", { name, level: 1 });
  await expect(open.or(heading)).toBeVisible();
  if (await open.isVisible()) await open.click();
  await expect(heading).toBeVisible();
}

test("invite by email: the invitee signs up from the mailed link, joins, is made admin and put in a team", async ({ page, browser, request }) => {
  const owner = uniqueUser("org-owner");
  const invitee = uniqueUser("org-invitee");
  const org = uniqueOrganization();
  await signUpViaApi(request, owner);
  await signIn(page, owner.email);
  await expectHome(page, owner);

  // Created from the top bar's switcher; the slug follows the name and is checked.
  await page.getByRole("button", { name: "Organization: Personal" }).click();
  await page.getByRole("link", { name: "Create organization" }).click();
  await expect(page.getByRole("heading", { name: "Create an organization" })).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(org.name);
  await expect(page.getByLabel("Slug", { exact: true })).toHaveValue(org.slug);
  await expect(page.getByTestId("slug-status")).toHaveText(`${org.slug} is available.`);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page).toHaveURL(/\/organization\/$/);
  await expect(page.getByRole("heading", { name: org.name, level: 1 })).toBeVisible();
  await expect(page.getByTestId("my-role")).toHaveText("Owner");
  await expect(page.getByRole("button", { name: `Organization: ${org.name}` })).toBeVisible();

  const invite = page.getByRole("form", { name: "Invite a member" });
  await invite.getByLabel("Email", { exact: true }).fill(invitee.email);
  await invite.getByRole("button", { name: "Send invitation" }).click();
  await expect(invite.getByRole("status")).toContainText(`Invitation sent to ${invitee.email}`);
  const pending = page.getByRole("region", { name: "Pending invitations" });
  await expect(pending.getByTestId("invitation-row").filter({ hasText: invitee.email })).toContainText("Member");
  // Invited twice: the refusal lands on the email field.
  await invite.getByLabel("Email", { exact: true }).fill(invitee.email);
  await invite.getByRole("button", { name: "Send invitation" }).click();
  await expect(invite.getByLabel("Email", { exact: true })).toHaveAccessibleDescription(/already has a pending invitation/);

  // The invitee opens the mailed link, signed out, in a browser of their own.
  const link = await mailedLink(request, invitee.email, "organization-invitation");
  expect(new URL(link).pathname).toMatch(/^\/accept-invitation\/[A-Za-z0-9_-]+$/);
  // The link's token proves the invitee's address: new and unverified, they may still join.
  expect(new URL(link).searchParams.get("token")).toMatch(/^[A-Za-z0-9]{32}$/);
  const context = await browser.newContext();
  const theirs = await context.newPage();
  await theirs.goto(link);
  await expect(theirs.getByRole("heading", { name: "You are invited to an organization" })).toBeVisible();
  await theirs.getByRole("link", { name: "Create account" }).click();
  await expect(theirs).toHaveURL(/\/sign-up\/\?callbackURL=%2Faccept-invitation%2F/);
  await theirs.getByLabel("Name", { exact: true }).fill(invitee.name);
  // The mailed link names the address: the form has it, locked.
  await expect(theirs.getByLabel("Email", { exact: true })).toHaveValue(invitee.email);
  await theirs.getByLabel("Password", { exact: true }).fill(invitee.password);
  await theirs.getByRole("button", { name: "Create account" }).click();

  // Back on the same invitation, now with what it is about.
  await expect(theirs.getByRole("heading", { name: `Join ${org.name}` })).toBeVisible();
  expect(new URL(theirs.url()).pathname.replace(/\/$/, "")).toBe(new URL(link).pathname);
  expect(new URL(theirs.url()).searchParams.get("token"), "the token came back through sign-up").toBe(new URL(link).searchParams.get("token"));
  await expect(theirs.getByText(owner.email, { exact: true })).toBeVisible();
  await expect(theirs.getByText("Member", { exact: true })).toBeVisible();
  await theirs.getByRole("button", { name: "Accept invitation" }).click();
  await expect(theirs).toHaveURL(/\/organization\/$/);
  await expect(theirs.getByRole("heading", { name: org.name, level: 1 })).toBeVisible();
  await expect(theirs.getByTestId("my-role")).toHaveText("Member");
  await expect(theirs.getByRole("button", { name: `Organization: ${org.name}` })).toBeVisible();

  // The owner sees them join, and makes them an admin.
  await page.reload();
  const members = page.getByRole("region", { name: "Members" });
  const row = members.getByTestId("member-row").filter({ hasText: invitee.email });
  await expect(row).toContainText(invitee.name);
  await expect(page.getByRole("region", { name: "Pending invitations" }).getByText("No pending invitations.")).toBeVisible();
  await row.getByRole("combobox", { name: `Role of ${invitee.name}` }).selectOption("admin");
  await expect(members.getByRole("status")).toHaveText(`${invitee.name} is now admin.`);
  await expectAccessible(page, "organization: members");
  await page.reload();
  await expect(page.getByRole("region", { name: "Members" }).getByRole("combobox", { name: `Role of ${invitee.name}` })).toHaveValue("admin");

  // A new team, and the new admin in it.
  await openOrganizationSection(page, "Teams");
  await expect(page).toHaveURL(/\/organization\/#teams$/);
  await expect(page.getByRole("region", { name: "Members" })).toHaveCount(0);
  const teams = page.getByRole("region", { name: "Teams" });
  await teams.getByLabel("Team name", { exact: true }).fill("Engineering");
  await teams.getByRole("button", { name: "Create team" }).click();
  await expect(teams.getByRole("status")).toHaveText("Team Engineering created.");
  await teams.getByRole("button", { name: "Manage team Engineering" }).click();
  const dialog = page.getByRole("dialog", { name: "Team Engineering" });
  await expect(dialog.getByText("Nobody is in this team yet.")).toBeVisible();
  await dialog.getByLabel("Add a member").selectOption({ label: `${invitee.name} (${invitee.email})` });
  await dialog.getByRole("button", { name: "Add to team" }).click();
  await expect(dialog.getByRole("status")).toHaveText(`${invitee.name} joined Engineering.`);
  await expect(dialog.getByTestId("team-member-row")).toHaveCount(1);
  await expect(dialog.getByTestId("team-member-row")).toContainText(invitee.email);
  await expectAccessible(page, "organization: team dialog");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(teams.getByRole("button", { name: "Manage team Engineering" })).toBeFocused();

  // The new admin, in the team themselves, sees it and may now manage members (not the owner).
  await theirs.reload();
  await expect(theirs.getByTestId("my-role")).toHaveText("Admin");
  await expect(theirs.getByRole("form", { name: "Invite a member" })).toBeVisible();
  await expect(theirs.getByRole("combobox", { name: `Role of ${owner.name}` })).toHaveCount(0);
  await expect(theirs.getByRole("button", { name: `Remove ${owner.email}` })).toHaveCount(0);
  // An admin manages members but not the organization's settings.
  await expect(theirs.getByRole("navigation", { name: "Organization sections" }).getByRole("link")).toHaveText(["Members", "Teams", "API keys", "Settings", "Billing"]);
  await openOrganizationSection(theirs, "Settings");
  await expect(theirs.getByRole("button", { name: "Delete organization…" })).toHaveCount(0);
  await openOrganizationSection(theirs, "Teams");
  await theirs.getByRole("button", { name: "Manage team Engineering" }).click();
  await expect(theirs.getByRole("dialog", { name: "Team Engineering" }).getByTestId("team-member-row")).toContainText(invitee.email);
  await context.close();
});

test("a plain member sees the organization but no admin controls, and can leave it", async ({ page, playwright, request }) => {
  const owner = uniqueUser("org-boss");
  const member = uniqueUser("org-plain");
  const ownerApi = await apiAs(playwright, owner);
  const org = await organizationWith(ownerApi, [member.email]);
  const memberApi = await apiAs(playwright, member);
  // Unverified, the new member answers with the mailed link's token.
  const token = new URL(await mailedLink(request, member.email, "organization-invitation")).searchParams.get("token");
  const accepted = await memberApi.post("/api/auth/organization/accept-invitation", { data: { invitationId: org.invitations[member.email], token } });
  expect(accepted.status(), await accepted.text()).toBe(200);

  await signIn(page, member.email);
  await expectHome(page, member);
  // A new session has no active organization: the page offers the user's organizations.
  await openOrganization(page, org.name);
  await expect(page.getByTestId("my-role")).toHaveText("Member");
  await expect(page.getByRole("region", { name: "Members" }).getByTestId("member-row")).toHaveCount(2);
  await expect(page.getByRole("region", { name: "Members" })).toContainText(owner.email);

  await expect(page.getByRole("main").getByRole("combobox")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Invite a member" })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Pending invitations" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Create team" })).toHaveCount(0);
  // A member's page has members and teams only: no settings, keys or billing, even when asked for.
  await expect(page.getByRole("navigation", { name: "Organization sections" }).getByRole("link")).toHaveText(["Members", "Teams"]);
  await page.goto("/organization/#settings");
  await expect(page.getByRole("region", { name: "Members" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Settings" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Delete organization…" })).toHaveCount(0);
  await openOrganizationSection(page, "Teams");
  await expect(page.getByRole("button", { name: "Create team" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Manage team/ })).toHaveCount(0);
  await page.getByRole("button", { name: `View team ${org.name}` }).click();
  const team = page.getByRole("dialog", { name: `Team ${org.name}` });
  await expect(team.getByText("Only the team's own members can see who is in it.")).toBeVisible();
  await expect(team.getByRole("button")).toHaveText(["✕"]);
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Leave organization…" }).click();
  const leave = page.getByRole("dialog", { name: `Leave ${org.name}?` });
  await leave.getByRole("button", { name: "Leave organization" }).click();
  await expect(page.getByRole("heading", { name: "Organizations", level: 1 })).toBeVisible();
  await expect(page.getByText("You are not in any organization yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Organization: Personal" })).toBeVisible();
  await ownerApi.dispose();
  await memberApi.dispose();
});

test("the owner cannot leave alone; resends and cancels an invitation, edits the settings, deletes by typing the slug", async ({ page, playwright }) => {
  const owner = uniqueUser("org-solo");
  const ownerApi = await apiAs(playwright, owner);
  const org = await organizationWith(ownerApi);
  const taken = await organizationWith(ownerApi);
  await signIn(page, owner.email);
  await expectHome(page, owner);
  await openOrganization(page, org.name);

  // The only owner is told before trying: leaving is not offered.
  await page.getByRole("button", { name: "Leave organization…" }).click();
  const leave = page.getByRole("dialog", { name: `Leave ${org.name}?` });
  await expect(leave.getByRole("note")).toContainText("You are its only owner");
  await expect(leave.getByRole("button", { name: "Leave organization" })).toBeDisabled();
  await leave.getByRole("button", { name: "Cancel" }).click();
  await expect(leave).toBeHidden();

  // Invitations: sent again (a new mail), then cancelled.
  const invitee = uniqueUser("org-maybe").email;
  const invite = page.getByRole("form", { name: "Invite a member" });
  await invite.getByLabel("Email", { exact: true }).fill(invitee);
  await invite.getByLabel("Role", { exact: true }).selectOption("admin");
  await invite.getByRole("button", { name: "Send invitation" }).click();
  const pending = page.getByRole("region", { name: "Pending invitations" });
  await expect(pending.getByTestId("invitation-row")).toContainText("Admin");
  await pending.getByRole("button", { name: `Resend the invitation to ${invitee}` }).click();
  await expect(pending.getByRole("status")).toHaveText(`Invitation sent again to ${invitee}.`);
  await expect.poll(async () => {
    const { mails } = (await (await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(invitee)}`)).json()) as { mails: unknown[] };
    return mails.length;
  }).toBe(2);
  // Cancelling asks first: the mailed link stops working.
  await pending.getByRole("button", { name: `Cancel the invitation to ${invitee}` }).click();
  const cancel = page.getByRole("dialog", { name: `Cancel the invitation to ${invitee}?` });
  await expect(cancel).toContainText(`The link mailed to ${invitee} stops working at once.`);
  await expectAccessible(page, "organization: cancel invitation confirmation");
  await cancel.getByRole("button", { name: "Cancel invitation" }).click();
  await expect(cancel).toBeHidden();
  await expect(pending.getByRole("status")).toHaveText(`The invitation to ${invitee} was cancelled.`);
  await expect(pending.getByText("No pending invitations.")).toBeVisible();

  await openOrganizationSection(page, "Settings");
  const settings = page.getByRole("form", { name: "Organization settings" });
  await settings.getByLabel("Slug", { exact: true }).fill(taken.slug);
  await expect(settings.getByLabel("Slug", { exact: true })).toHaveAccessibleDescription(/^This slug is taken\. Try another\./);
  const renamed = uniqueOrganization();
  await settings.getByLabel("Name", { exact: true }).fill(renamed.name);
  await settings.getByLabel("Slug", { exact: true }).fill(renamed.slug);
  await expect(settings.getByTestId("slug-status")).toHaveText(`${renamed.slug} is available.`);
  await expectAccessible(page, "organization: settings");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings.getByRole("status")).toHaveText("Settings saved.");
  await expect(page.getByRole("heading", { name: renamed.name, level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: `Organization: ${renamed.name}` })).toBeVisible();

  await page.getByRole("button", { name: "Delete organization…" }).click();
  const dialog = page.getByRole("dialog", { name: `Delete ${renamed.name}?` });
  const confirm = dialog.getByRole("button", { name: "Delete this organization" });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${renamed.slug} to confirm`).fill("not-it");
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${renamed.slug} to confirm`).fill(renamed.slug);
  await expectAccessible(page, "organization: delete confirmation");
  await confirm.click();
  await expect(page.getByRole("heading", { name: "Organizations", level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: `Open ${taken.name}` })).toBeVisible();
  await expect(page.getByRole("button", { name: `Open ${renamed.name}` })).toHaveCount(0);
  await ownerApi.dispose();
});

test("making an owner and removing a team each ask first, saying what follows", async ({ page, playwright, request }) => {
  const owner = uniqueUser("org-giver");
  const member = uniqueUser("org-heir");
  const ownerApi = await apiAs(playwright, owner);
  const org = await organizationWith(ownerApi, [member.email]);
  const memberApi = await apiAs(playwright, member);
  const token = new URL(await mailedLink(request, member.email, "organization-invitation")).searchParams.get("token");
  const accepted = await memberApi.post("/api/auth/organization/accept-invitation", { data: { invitationId: org.invitations[member.email], token } });
  expect(accepted.status(), await accepted.text()).toBe(200);
  await signIn(page, owner.email);
  await expectHome(page, owner);
  await openOrganization(page, org.name);

  // Ownership: every right, deleting the organization included. Cancelled, nothing changes.
  const members = page.getByRole("region", { name: "Members" });
  const role = members.getByRole("combobox", { name: `Role of ${member.name}` });
  await role.selectOption("owner");
  const promote = page.getByRole("dialog", { name: `Make ${member.name} an owner?` });
  await expect(promote).toContainText(`${member.name} gets every right in ${org.name}`);
  await expect(promote).toContainText("deleting the organization");
  await expectAccessible(page, "organization: make owner confirmation");
  await promote.getByRole("button", { name: "Cancel" }).click();
  await expect(promote).toBeHidden();
  await expect(role).toHaveValue("member");
  await role.selectOption("owner");
  await promote.getByRole("button", { name: "Make owner" }).click();
  await expect(promote).toBeHidden();
  await expect(members.getByRole("status")).toHaveText(`${member.name} is now owner.`);
  await page.reload();
  await expect(page.getByRole("region", { name: "Members" }).getByRole("combobox", { name: `Role of ${member.name}` })).toHaveValue("owner");

  // A team of its own (an organization keeps at least one), removed after confirming.
  await openOrganizationSection(page, "Teams");
  const teams = page.getByRole("region", { name: "Teams" });
  await teams.getByLabel("Team name", { exact: true }).fill("Research");
  await teams.getByRole("button", { name: "Create team" }).click();
  await teams.getByRole("button", { name: "Manage team Research" }).click();
  const team = page.getByRole("dialog", { name: "Team Research", exact: true });
  await team.getByRole("button", { name: "Remove team…" }).click();
  const remove = page.getByRole("dialog", { name: "Remove team Research?" });
  await expect(remove).toContainText(`Its members stay in ${org.name} but leave the team`);
  await expectAccessible(page, "organization: remove team confirmation");
  await remove.getByRole("button", { name: "Keep it" }).click();
  await expect(remove).toBeHidden();
  await expect(team).toBeVisible();
  await team.getByRole("button", { name: "Remove team…" }).click();
  await remove.getByRole("button", { name: "Yes, remove Research" }).click();
  await expect(team).toBeHidden();
  await expect(teams.getByText("Team Research removed.")).toBeVisible();
  await expect(teams.getByRole("button", { name: "Manage team Research" })).toHaveCount(0);
  await ownerApi.dispose();
  await memberApi.dispose();
});

test("the invitation page explains a link meant for someone else, and one that no longer works", async ({ page, playwright }) => {
  const owner = uniqueUser("org-sender");
  const stranger = uniqueUser("org-stranger");
  const ownerApi = await apiAs(playwright, owner);
  const org = await organizationWith(ownerApi, [uniqueUser("org-someone").email]);
  const invitationId = Object.values(org.invitations)[0] ?? "";
  const strangerApi = await apiAs(playwright, stranger);

  await signIn(page, stranger.email);
  await expectHome(page, stranger);
  await page.goto(`/accept-invitation/${invitationId}`);
  await expect(page.getByRole("heading", { name: "This invitation cannot be used" })).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: `sent to another email address, and you are signed in as ${stranger.email}` })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in with another account" })).toBeVisible();

  // The fallback address form, for an invitation that does not exist.
  await page.goto("/accept-invitation/?id=no-such-invitation");
  await expect(page.getByRole("alert").filter({ hasText: "This invitation was not found" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in with another account" })).toHaveCount(0);
  await page.getByRole("link", { name: "Go home" }).click();
  await expectHome(page, stranger);
  await ownerApi.dispose();
  await strangerApi.dispose();
});
