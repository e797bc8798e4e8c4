import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { apiAs, expectHome, mailedLink, signIn, uniqueUser } from "./helpers";

/** An organization made through the API by its owner's client, with `email` invited as `role`. */
async function organizationInviting(api: APIRequestContext, email: string, role = "member") {
  const id = randomUUID().slice(0, 8);
  const org = { name: `Initech ${id}`, slug: `initech-${id}` };
  const created = await api.post("/api/auth/organization/create", { data: org });
  expect(created.status(), await created.text()).toBe(200);
  const invited = await api.post("/api/auth/organization/invite-member", { data: { email, role } });
  expect(invited.status(), await invited.text()).toBe(200);
  return { ...org, id: ((await created.json()) as { id: string }).id };
}

/**
 * Verifies `email` through its mailed link, followed by `api` (the user's own client): only a
 * verified address may list its invitations.
 */
async function verifyEmail(api: APIRequestContext, request: APIRequestContext, email: string) {
  const sent = await api.post("/api/auth/send-verification-email", { data: { email, callbackURL: "/verify-email/" } });
  expect(sent.status(), await sent.text()).toBe(200);
  const verified = await api.get(await mailedLink(request, email, "verify-email"), { maxRedirects: 0 });
  expect(verified.status(), await verified.text()).toBe(302);
  expect(verified.headers()["location"] ?? "").not.toContain("error=");
}

test("an invited user sees their invitations on the home page, declines one and accepts the other", async ({ page, playwright, request }) => {
  const owner = uniqueUser("inv-owner");
  const other = uniqueUser("inv-other");
  const invitee = uniqueUser("inv-member");
  const ownerApi = await apiAs(playwright, owner);
  const otherApi = await apiAs(playwright, other);
  const inviteeApi = await apiAs(playwright, invitee);
  await verifyEmail(inviteeApi, request, invitee.email);
  const joined = await organizationInviting(ownerApi, invitee.email, "admin");
  const declined = await organizationInviting(otherApi, invitee.email);

  await signIn(page, invitee.email);
  await expectHome(page, invitee);
  const invitations = page.getByRole("region", { name: "Invitations" });
  const rows = invitations.getByTestId("user-invitation-row");
  await expect(rows).toHaveCount(2);
  const mine = rows.filter({ hasText: joined.name });
  await expect(mine).toContainText("Role: Admin");
  // Who sent it, read from the invitation itself.
  await expect(mine).toContainText(`invited by ${owner.email}`);
  await expect(mine).toContainText("expires");
  await expect(rows.filter({ hasText: declined.name })).toContainText("Role: Member");

  await invitations.getByRole("button", { name: `Decline the invitation to ${declined.name}` }).click();
  await expect(invitations.getByRole("status")).toHaveText(`You declined the invitation to ${declined.name}.`);
  await expect(rows).toHaveCount(1);

  await invitations.getByRole("button", { name: `Accept the invitation to ${joined.name}` }).click();
  await expect(invitations.getByRole("status")).toHaveText(`You joined ${joined.name}.`);
  await expect(rows).toHaveCount(0);
  const open = invitations.getByRole("button", { name: `Open ${joined.name}` });
  await expect(open).toBeFocused();
  await open.click();
  await expect(page).toHaveURL(/\/organization\/$/);
  await expect(page.getByRole("heading", { name: joined.name, level: 1 })).toBeVisible();
  await expect(page.getByTestId("my-role")).toHaveText("Admin");

  // A member now, as the owner sees it; and nothing is left to answer.
  const full = await ownerApi.get(`/api/auth/organization/get-full-organization?organizationId=${joined.id}`);
  expect(full.status(), await full.text()).toBe(200);
  const { members } = (await full.json()) as { members: { role: string; user: { email: string } }[] };
  expect(members.find((m) => m.user.email === invitee.email)?.role).toBe("admin");
  await page.goto("/");
  await expectHome(page, invitee);
  await expect(page.getByRole("region", { name: "Invitations" })).toHaveCount(0);
  await ownerApi.dispose();
  await otherApi.dispose();
  await inviteeApi.dispose();
});

test("an invitation to a new address: its page's sign-up link fills in the address and locks it", async ({ page, playwright, request }) => {
  const owner = uniqueUser("inv-sender");
  const invitee = uniqueUser("inv-newcomer");
  const ownerApi = await apiAs(playwright, owner);
  const org = await organizationInviting(ownerApi, invitee.email);

  // The page can read no invitation for a visitor who is signed out: the link names the address.
  const link = await mailedLink(request, invitee.email, "organization-invitation");
  expect(new URL(link).searchParams.get("email"), "the mailed link names the invited address").toBe(invitee.email);
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "You are invited to an organization" })).toBeVisible();
  await page.getByRole("link", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/sign-up\/\?callbackURL=%2Faccept-invitation%2F/);
  expect(new URL(page.url()).searchParams.get("email")).toBe(invitee.email);

  const email = page.getByLabel("Email", { exact: true });
  await expect(email).toHaveValue(invitee.email);
  await expect(email).not.toBeEditable();
  await expect(email).toHaveAccessibleDescription(/The invitation was sent to this address\./);

  // Another address stays possible: the field opens, with focus in it.
  await page.getByRole("button", { name: "Use another address" }).click();
  await expect(email).toBeEditable();
  await expect(email).toBeFocused();
  await expect(page.getByRole("button", { name: "Use another address" })).toHaveCount(0);

  // Back to the locked address, and signing up with it leads back to the invitation.
  await page.reload();
  await expect(email).toHaveValue(invitee.email);
  await expect(email).not.toBeEditable();
  await page.getByLabel("Name", { exact: true }).fill(invitee.name);
  await page.getByLabel("Password", { exact: true }).fill(invitee.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: `Join ${org.name}` })).toBeVisible();
  await page.getByRole("button", { name: "Accept invitation" }).click();
  await expect(page).toHaveURL(/\/organization\/$/);
  await expect(page.getByRole("heading", { name: org.name, level: 1 })).toBeVisible();
  await expect(page.getByTestId("my-role")).toHaveText("Member");
  await ownerApi.dispose();
});
