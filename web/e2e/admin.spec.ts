import { expect, test, type Page } from "@playwright/test";
import { expectHome, makeAdmin, signIn, signUpViaApi, uniqueUser, type User, openUserMenu, openAccountSection } from "./helpers";

async function openManage(page: Page, target: User) {
  await page.goto("/admin/");
  await page.getByLabel("Search", { exact: true }).fill(target.email);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const row = page.getByTestId("user-row").filter({ hasText: target.email });
  await expect(row).toHaveCount(1);
  await row.getByRole("button", { name: `Manage ${target.email}` }).click();
  // By name: a confirmation opens as a second dialog beside it.
  return page.getByRole("dialog", { name: `Manage ${target.name}` });
}

test("a non-admin does not see the admin area", async ({ page, request }) => {
  const user = uniqueUser("plain");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);
  await page.goto("/admin/");
  await expect(page.getByText("This area is for administrators.")).toBeVisible();
});

test("ban a user, who is then refused at sign-in; unban lets them back", async ({ page, browser, request }) => {
  const admin = uniqueUser("admin");
  const target = uniqueUser("target");
  await signUpViaApi(request, admin);
  await signUpViaApi(request, target);
  makeAdmin(admin.email);
  await signIn(page, admin.email);
  await expectHome(page, admin);
  await expect((await openUserMenu(page)).getByRole("link", { name: "Admin" })).toBeVisible();

  let dialog = await openManage(page, target);
  // Signed up through the API, never verified, not banned.
  await expect(dialog.getByTestId("email-status")).toHaveText("Not verified");
  await expect(dialog.getByTestId("account-status")).toHaveText("Active");
  await dialog.getByLabel("Reason (optional)", { exact: true }).fill("spamming the forum");
  await dialog.getByLabel("Ban for", { exact: true }).selectOption({ label: "7 days" });
  await dialog.getByRole("button", { name: "Ban user" }).click();
  // Asked first, with how long, why, and what it does.
  const confirm = page.getByRole("dialog", { name: `Ban ${target.name}?` });
  await expect(confirm).toContainText(`Ban ${target.name} for 7 days: every session of theirs ends at once, and they cannot sign in until the ban ends.`);
  await expect(confirm).toContainText("We mail them to say so, with the reason: “spamming the forum”.");
  await confirm.getByRole("button", { name: `Yes, ban ${target.name}` }).click();
  await expect(confirm).toBeHidden();
  await expect(dialog.getByRole("status")).toHaveText("User banned and signed out everywhere.");
  await expect(dialog.getByTestId("account-status")).toHaveText(/^Banned: spamming the forum \(until /);
  await dialog.getByRole("button", { name: "Close" }).click();
  // Focus goes back to the button that opened the dialog.
  await expect(page.getByRole("button", { name: `Manage ${target.email}` })).toBeFocused();
  await expect(page.getByTestId("user-row").filter({ hasText: target.email })).toContainText("Banned");

  const other = await browser.newContext();
  const targetPage = await other.newPage();
  await signIn(targetPage, target.email);
  await expect(targetPage.getByRole("form", { name: "Sign in" }).getByRole("alert")).toContainText("You have been banned from this application");
  await expect(targetPage).toHaveURL(/\/sign-in\/$/);

  dialog = await openManage(page, target);
  await dialog.getByRole("button", { name: "Unban" }).click();
  await expect(dialog.getByRole("status")).toHaveText("User unbanned.");
  await signIn(targetPage, target.email);
  await expectHome(targetPage, target);
  await other.close();
});

test("impersonate a user with a banner that stays, then stop", async ({ page, request }) => {
  const admin = uniqueUser("imp-admin");
  const target = uniqueUser("imp-target");
  await signUpViaApi(request, admin);
  await signUpViaApi(request, target);
  makeAdmin(admin.email);
  await signIn(page, admin.email);
  await expectHome(page, admin);

  const dialog = await openManage(page, target);
  await dialog.getByRole("button", { name: "Impersonate" }).click();
  await expectHome(page, target);
  const banner = page.getByRole("region", { name: "Impersonation" });
  await expect(banner).toContainText(`You are signed in as ${target.name}`);
  await page.goto("/account/");
  await expect(page.getByRole("region", { name: "Impersonation" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Profile" })).toContainText(target.email);
  // Nothing here may sign the real user out or change their password.
  await expect(page.getByRole("region", { name: "Email address" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Delete account…" })).toHaveCount(0);
  await openAccountSection(page, "Sessions");
  await expect(page.getByRole("note")).toContainText("You are impersonating this user");
  await expect(page.getByRole("button", { name: "Sign out all other sessions" })).toHaveCount(0);
  await openAccountSection(page, "Security");
  await expect(page.getByRole("form", { name: "Change password" })).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Account sections" }).getByRole("link", { name: "API keys" })).toHaveCount(0);

  await page.getByRole("button", { name: "Stop impersonating" }).click();
  await expect(page).toHaveURL(/\/admin\/$/);
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Impersonation" })).toHaveCount(0);
  await page.goto("/");
  await expectHome(page, admin);
});

test("create a user, revoke their sessions and remove them", async ({ page, browser, request }) => {
  const admin = uniqueUser("ops-admin");
  await signUpViaApi(request, admin);
  makeAdmin(admin.email);
  await signIn(page, admin.email);
  await expectHome(page, admin);
  await page.goto("/admin/");

  const created = uniqueUser("created");
  await page.getByRole("button", { name: "Create user" }).click();
  const create = page.getByRole("dialog", { name: "Create user" });
  await create.getByLabel("Name", { exact: true }).fill(created.name);
  await create.getByLabel("Email", { exact: true }).fill("not-an-email");
  await create.getByLabel("Password", { exact: true }).fill(created.password);
  await create.getByRole("button", { name: "Create user" }).click();
  await expect(create.getByLabel("Email", { exact: true })).toHaveAccessibleDescription(/Enter an email address/);
  await create.getByLabel("Email", { exact: true }).fill(created.email);
  await create.getByRole("button", { name: "Create user" }).click();
  await expect(create).toBeHidden();

  // The new user signs in elsewhere; the admin then revokes that session.
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, created.email);
  await expectHome(theirs, created);

  const dialog = await openManage(page, created);
  // The session they just started is listed (an admin-made user has no other).
  await expect(dialog.getByTestId("user-session-row")).toHaveCount(1);
  await expect(dialog.getByTestId("user-session-row")).toContainText("· signed in ");
  await dialog.getByRole("button", { name: "Revoke all sessions" }).click();
  await expect(dialog.getByRole("status")).toHaveText("All of this user's sessions were revoked.");
  await expect(dialog.getByText("No sessions: they are not signed in anywhere.")).toBeVisible();
  await theirs.goto("/account/");
  await expect(theirs).toHaveURL(/\/sign-in\//);

  await dialog.getByRole("button", { name: "Remove user…" }).click();
  await dialog.getByRole("button", { name: `Yes, remove ${created.email}` }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page.getByText("No users match this search.")).toBeVisible();
  await signIn(theirs, created.email);
  await expect(theirs.getByLabel("Password", { exact: true })).toHaveAccessibleDescription("Wrong email or password.");
  await other.close();
});

test("make a user an admin, whom another admin then cannot ban nor sign out", async ({ page, browser, request }) => {
  const admin = uniqueUser("role-admin");
  const promoted = uniqueUser("promoted");
  await signUpViaApi(request, admin);
  await signUpViaApi(request, promoted);
  makeAdmin(admin.email);
  await signIn(page, admin.email);
  await expectHome(page, admin);
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, promoted.email);
  await expectHome(theirs, promoted);

  const dialog = await openManage(page, promoted);
  await dialog.getByLabel("Set role to").selectOption("admin");
  await dialog.getByRole("button", { name: "Save role" }).click();
  await expect(dialog.getByRole("status")).toHaveText("Role set to admin.");
  // Admins answer to super-admins (ADMIN_USER_IDS) only: the dialog says so, nothing changes.
  await dialog.getByRole("button", { name: "Ban user" }).click();
  const confirm = page.getByRole("dialog", { name: `Ban ${promoted.name}?` });
  await confirm.getByRole("button", { name: `Yes, ban ${promoted.name}` }).click();
  await expect(confirm.getByRole("alert")).toHaveText("Only a super-admin can ban or unban another admin.");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  await expect(dialog.getByTestId("account-status")).toHaveText("Active");
  await dialog.getByRole("button", { name: "Revoke all sessions" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Only a super-admin can sign another admin out.");
  await theirs.goto("/account/");
  await expect(theirs).toHaveURL(/\/account\/$/);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("user-row").filter({ hasText: promoted.email })).not.toContainText("Banned");
  await other.close();
});

test("the admin sees a user's sessions and ends one of them", async ({ page, browser, request }) => {
  const admin = uniqueUser("sess-admin");
  const target = uniqueUser("sess-target");
  await signUpViaApi(request, admin);
  await signUpViaApi(request, target);
  makeAdmin(admin.email);
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs, target.email);
  await expectHome(theirs, target);
  await signIn(page, admin.email);
  await expectHome(page, admin);

  const dialog = await openManage(page, target);
  const sessions = dialog.getByRole("list", { name: `Sessions of ${target.name}` });
  // Running sessions come first, newest first: the one just started in the other browser.
  const newest = sessions.getByTestId("user-session-row").first();
  await expect(newest).toContainText(/· signed in .+ · expires /);
  await newest.getByRole("button", { name: /^Revoke the .+ session from / }).click();
  await expect(dialog.getByRole("status")).toHaveText(/^The .+ session was revoked\.$/);
  await theirs.goto("/account/");
  await expect(theirs).toHaveURL(/\/sign-in\//);
  await other.close();
});

test("the users table searches, sorts by column and pages by 20", async ({ page, request }) => {
  const admin = uniqueUser("pager-admin");
  await signUpViaApi(request, admin);
  makeAdmin(admin.email);
  // 23 users sharing a search term, named so that name order is known: Page 00 … Page 22.
  const tag = `pg${Date.now().toString(36)}`;
  for (let i = 0; i < 23; i++) {
    const user = { ...uniqueUser(tag), name: `Page ${String(i).padStart(2, "0")}` };
    await signUpViaApi(request, user);
  }
  await signIn(page, admin.email);
  await expectHome(page, admin);
  await page.goto("/admin/");
  await page.getByLabel("Search", { exact: true }).fill(tag);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const rows = page.getByTestId("user-row");
  await expect(page.getByText("Page 1 of 2 · 23 users")).toBeVisible();
  await expect(rows).toHaveCount(20);

  await page.getByRole("button", { name: "Name" }).click();
  await expect(page.getByRole("columnheader", { name: /Name/ })).toHaveAttribute("aria-sort", "ascending");
  await expect(rows.first()).toContainText("Page 00");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Page 2 of 2 · 23 users")).toBeVisible();
  await expect(rows).toHaveCount(3);
  await expect(rows.last()).toContainText("Page 22");
  await expect(page.getByRole("button", { name: "Next" })).toBeDisabled();

  await page.getByRole("button", { name: "Name" }).click();
  await expect(page.getByRole("columnheader", { name: /Name/ })).toHaveAttribute("aria-sort", "descending");
  await expect(page.getByText("Page 1 of 2 · 23 users")).toBeVisible();
  await expect(rows.first()).toContainText("Page 22");

  await page.getByLabel("Search", { exact: true }).fill(`${tag}-nobody`);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page.getByText("No users match this search.")).toBeVisible();
  await expect(page.getByText("Page 1 of 1 · 0 users")).toBeVisible();
});
