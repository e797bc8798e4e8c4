import { expect, test } from "@playwright/test";
import { expectHome, signIn, signUpViaApi, uniqueUser, signOut, openAccountSection } from "./helpers";

// The test run's OpenID provider (tests/oidc-provider, `test-oidc`) signs in its default user
// without a person at the keyboard: Alice, whose address it has verified.
test("the provider's button signs in through the provider and comes back signed in", async ({ page }) => {
  await page.goto("/sign-in/");
  const button = page.getByRole("button", { name: "Continue with test-oidc" });
  await expect(button).toBeVisible();
  await button.click();
  await expect(page.getByRole("heading", { name: "Welcome, Alice Example" })).toBeVisible({ timeout: 15_000 });
  await expect(page).toHaveURL(/\/$/);
});

test("a refused sign-in comes back to the sign-in page and says why", async ({ page }) => {
  await page.goto("/sign-in/?error=account_not_linked&error_description=An+account+with+this+email+exists.");
  const social = page.getByRole("region", { name: "Or continue with" });
  await expect(social.getByRole("alert")).toHaveText("An account with this email exists.");
  await expect(page.getByRole("button", { name: "Continue with test-oidc" })).toBeEnabled();
});

test("the account page links a provider (refused here: another address) and keeps the only way in", async ({ page, request }) => {
  const user = uniqueUser("linker");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await openAccountSection(page, "Security");
  const methods = page.getByRole("region", { name: "Sign-in methods" });
  await expect(methods.getByTestId("account-row")).toHaveText(["Password"]);
  await methods.getByRole("button", { name: "Link test-oidc" }).click();
  // The provider signs in Alice, whose address is not this user's.
  await expect(page).toHaveURL(/\/account\/\?section=security&error=email_does_not_match/, { timeout: 15_000 });
  await expect(methods.getByRole("alert")).toContainText("another email address");
  await expect(methods.getByTestId("account-row")).toHaveText(["Password"]);

  // Alice, who only signs in through the provider, is not offered to remove it.
  await signOut(page);
  await page.getByRole("button", { name: "Continue with test-oidc" }).click();
  await expect(page.getByRole("heading", { name: "Welcome, Alice Example" })).toBeVisible({ timeout: 15_000 });
  await page.goto("/account/#security");
  await expect(methods.getByTestId("account-row")).toHaveCount(1);
  await expect(methods.getByRole("button", { name: /Unlink/ })).toHaveCount(0);
});
