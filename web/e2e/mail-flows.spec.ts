import { expect, test } from "@playwright/test";
import { expectHome, followMailLink, signIn, signUpViaApi, uniqueUser } from "./helpers";

test("forgot password: the mailed link leads to a new password, then to signing in with it", async ({ page, request }) => {
  const user = uniqueUser("forgot");
  await signUpViaApi(request, user);
  await page.goto("/sign-in/");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
  await page.getByLabel("Email").fill(user.email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByRole("status")).toContainText(`If ${user.email} belongs to an account`);

  await followMailLink(page, user.email, /Reset your password/);
  await expect(page).toHaveURL(/\/reset-password\/\?token=[A-Za-z0-9]{24}$/);
  await page.getByLabel("New password", { exact: true }).fill("a-brand-new-secret");
  await page.getByLabel("Repeat the new password").fill("a-brand-new-secret");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByRole("status")).toContainText("Your new password is set");

  // The link works once: followed again, it says so.
  await followMailLink(page, user.email, /Reset your password/);
  await expect(page).toHaveURL(/\/reset-password\/\?error=INVALID_TOKEN$/);
  await expect(page.getByRole("alert").filter({ hasText: "This link no longer works" })).toBeVisible();

  await signIn(page, user.email, user.password);
  await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription("Wrong email or password.");
  await signIn(page, user.email, "a-brand-new-secret");
  await expectHome(page, user);
});

test("verification: the account page sends a link, and the link verifies the address", async ({ page, request }) => {
  const user = uniqueUser("verify");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await page.goto("/account/");
  const email = page.getByRole("region", { name: "Email address" });
  await expect(email.getByText("Not verified")).toBeVisible();
  await email.getByRole("button", { name: "Send a verification link" }).click();
  await expect(email.getByRole("status")).toContainText(`We sent a link to ${user.email}`);

  await followMailLink(page, user.email, /Confirm your email address/);
  await expect(page).toHaveURL(/\/verify-email\/$/);
  await expect(page.getByRole("heading", { name: "Email address verified" })).toBeVisible();
  await expect(page.getByText(`${user.email} (verified)`)).toBeVisible();
  await page.getByRole("link", { name: "Go to your account" }).click();
  await expect(page.getByRole("region", { name: "Email address" }).getByText("Verified", { exact: true })).toBeVisible();
});

test("a dead verification link explains itself and offers a new one", async ({ page }) => {
  await page.goto("/api/auth/verify-email?token=not-a-real-token&callbackURL=%2Fverify-email%2F");
  await expect(page).toHaveURL(/\/verify-email\/\?error=INVALID_TOKEN$/);
  await expect(page.getByRole("alert").filter({ hasText: "This link no longer works" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Send a new link" })).toBeVisible();
});

test("an unverified address changes at once; deleting the account needs the password", async ({ page, request }) => {
  const user = uniqueUser("moving");
  const moved = uniqueUser("moved").email;
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await page.goto("/account/");
  const email = page.getByRole("region", { name: "Email address" });
  await email.getByLabel("New email address").fill(moved);
  await email.getByRole("button", { name: "Change email address" }).click();
  await expect(email.getByRole("status")).toContainText(`Your address is now ${moved}`);
  await expect(email.getByText(moved, { exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Delete account…" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete your account?" });
  await dialog.getByLabel("Password").fill("not-the-password");
  await dialog.getByRole("button", { name: "Delete my account" }).click();
  await expect(dialog.getByLabel("Password")).toHaveAccessibleDescription(/Your current password is not right\./);
  await dialog.getByLabel("Password").fill(user.password);
  await dialog.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL(/\/account-deleted\/$/);
  await expect(page.getByRole("heading", { name: "Your account is deleted" })).toBeVisible();
  await page.goto("/account/");
  await expect(page).toHaveURL(/\/sign-in\//);
});
