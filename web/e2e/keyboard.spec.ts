import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectHome, signUpViaApi, uniqueUser } from "./helpers";

/** Presses Tab until `target` has focus (at most `limit` times): only the keyboard moves. */
async function tabTo(page: Page, target: Locator, limit = 25) {
  for (let i = 0; i < limit; i += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  await expect(target).toBeFocused();
}

test("sign-in, a refused submit and the user's menu, with the keyboard only", async ({ page, request }) => {
  const user = uniqueUser("keys");
  await signUpViaApi(request, user);
  await page.goto("/sign-in/");

  // The skip link comes first and lands in the page.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();

  // Enter on an empty form: focus goes to the first field, which says what is missing.
  const identifier = page.getByLabel("Email or username", { exact: true });
  await tabTo(page, identifier);
  await page.keyboard.press("Enter");
  await expect(identifier).toBeFocused();
  await expect(identifier).toHaveAccessibleDescription("Enter your email or username.");

  await page.keyboard.type(user.email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password", { exact: true })).toBeFocused();
  await page.keyboard.type(user.password);
  await page.keyboard.press("Enter");
  await expectHome(page, user);

  // The user's menu: opened, walked and closed from the keyboard; focus comes back to it.
  const menuButton = page.getByRole("button", { name: `Account menu of ${user.name}` });
  await tabTo(page, menuButton);
  await page.keyboard.press("Enter");
  await expect(menuButton).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(menuButton).toHaveAttribute("aria-expanded", "false");
  await expect(menuButton).toBeFocused();

  // …and it signs out.
  await page.keyboard.press("Enter");
  const signOut = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" });
  await tabTo(page, signOut, 6);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/sign-in\/$/);
});
