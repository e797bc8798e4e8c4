import { expect, test } from "@playwright/test";

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
