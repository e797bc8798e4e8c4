import { expect, test } from "@playwright/test";
import { expectHome, signIn, signUpViaApi, uniqueUser, signOut } from "./helpers";

test("sign up, sign out, sign in by email and by username", async ({ page }) => {
  const user = uniqueUser("ada");
  await page.goto("/sign-up/");
  await page.getByLabel("Name", { exact: true }).fill(user.name);
  await page.getByLabel("Email", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByLabel("Username (optional)", { exact: true }).fill(user.username);
  await page.getByRole("button", { name: "Create account" }).click();
  await expectHome(page, user);

  await signOut(page);
  await expect(page).toHaveURL(/\/sign-in\/$/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();

  await signIn(page, user.email);
  await expectHome(page, user);
  await signOut(page);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();

  await signIn(page, user.username.toUpperCase());
  await expectHome(page, user);
});

test("a wrong password is shown next to the password field", async ({ page, request }) => {
  const user = uniqueUser("wrong");
  await signUpViaApi(request, user);
  await signIn(page, user.email, "not-the-password");
  const password = page.getByLabel("Password", { exact: true });
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(password).toHaveAccessibleDescription("Wrong email or password.");
  await expect(page).toHaveURL(/\/sign-in\/$/);
});

test("server rules show inline on sign-up, and a taken email lands on the email field", async ({ page, request }) => {
  const taken = uniqueUser("taken");
  await signUpViaApi(request, taken);
  await page.goto("/sign-up/");
  await page.getByLabel("Password", { exact: true }).fill("short");
  await page.getByLabel("Password", { exact: true }).blur();
  await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/Use at least 8 characters/);
  await page.getByLabel("Name", { exact: true }).fill("Someone");
  await page.getByLabel("Email", { exact: true }).fill(taken.email);
  await page.getByLabel("Password", { exact: true }).fill("long-enough-password");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByLabel("Email", { exact: true })).toHaveAccessibleDescription(/already exists/);
});

test("a signed-out visitor is sent to sign-in and back where they were going", async ({ page, request }) => {
  const user = uniqueUser("deep");
  await signUpViaApi(request, user);
  await page.context().clearCookies();
  await page.goto("/account");
  await expect(page).toHaveURL(/\/sign-in\/\?callbackURL=%2Faccount%2F$/);
  await page.getByLabel("Email or username", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/account\/$/);
  await expect(page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible();

  // Only a path on this site is followed after sign-in.
  await signOut(page);
  // (Navigating before the sign-out finished would abort it, and leave the session alive.)
  await expect(page).toHaveURL(/\/sign-in\/$/);
  await page.goto("/sign-in/?callbackURL=https%3A%2F%2Fevil.example%2F");
  await page.getByLabel("Email or username", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: `Welcome, ${user.name}` })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/");
});

test("keyboard only: sign in with Tab, typing and Enter", async ({ page, request }) => {
  const user = uniqueUser("keys");
  await signUpViaApi(request, user);
  await page.goto("/sign-in/");
  await page.getByLabel("Email or username", { exact: true }).focus();
  await page.keyboard.type(user.email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password", { exact: true })).toBeFocused();
  await page.keyboard.type(user.password);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: `Welcome, ${user.name}` })).toBeVisible();
});
