import { expect, test } from "@playwright/test";
import { PASSWORD, expectHome, signIn, signUpViaApi, uniqueUser, signOut, openAccountSection } from "./helpers";

test("change password: the old one stops working, the new one signs in", async ({ page, request }) => {
  const user = uniqueUser("pw");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await page.getByRole("link", { name: "Account" }).first().click();
  await openAccountSection(page, "Security");

  const form = page.getByRole("form", { name: "Change password" });
  await form.getByLabel("Current password", { exact: true }).fill("not-my-password");
  await form.getByLabel("New password", { exact: true }).fill("a-brand-new-password");
  await form.getByLabel("Repeat the new password", { exact: true }).fill("a-brand-new-password");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByLabel("Current password", { exact: true })).toHaveAccessibleDescription("Your current password is not right.");

  await form.getByLabel("Current password", { exact: true }).fill(PASSWORD);
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByRole("status")).toHaveText("Password changed. Your other sessions were signed out.");

  await signOut(page);
  await expect(page).toHaveURL(/\/sign-in\/$/);
  await signIn(page, user.email, PASSWORD);
  await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription("Wrong email or password.");
  await signIn(page, user.email, "a-brand-new-password");
  await expectHome(page, user);
});

test("profile changes show at once and survive a reload", async ({ page, request }) => {
  const user = uniqueUser("profile");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await page.goto("/account/");
  const form = page.getByRole("form", { name: "Profile" });
  await form.getByLabel("Name", { exact: true }).fill("Renamed Person");
  await form.getByLabel("Username", { exact: true }).fill(`Re_${user.username}`);
  await form.getByLabel("Picture address", { exact: true }).fill("not a url");
  await form.getByRole("button", { name: "Save profile" }).click();
  await expect(form.getByLabel("Picture address", { exact: true })).toHaveAccessibleDescription(/Enter a full address/);
  await form.getByLabel("Picture address", { exact: true }).fill("https://example.com/me.png");
  await form.getByRole("button", { name: "Save profile" }).click();
  await expect(form.getByRole("status")).toHaveText("Profile saved.");
  await page.reload();
  await expect(page.getByRole("form", { name: "Profile" }).getByLabel("Name", { exact: true })).toHaveValue("Renamed Person");
  await expect(page.getByRole("form", { name: "Profile" }).getByLabel("Username", { exact: true })).toHaveValue(`Re_${user.username}`);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Welcome, Renamed Person" })).toBeVisible();
});

test("revoke another session, opened in a second browser", async ({ browser, request }) => {
  const user = uniqueUser("sessions");
  await signUpViaApi(request, user);
  const laptop = await browser.newContext();
  const phone = await browser.newContext({ userAgent: "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36" });
  const a = await laptop.newPage();
  const b = await phone.newPage();
  await signIn(a, user.email);
  await expectHome(a, user);
  await signIn(b, user.email);
  await expectHome(b, user);

  await openAccountSection(a, "Sessions");
  const sessions = a.getByRole("region", { name: "Active sessions" });
  // The API sign-up's session, the phone's and this one.
  await expect(sessions.getByTestId("session-row")).toHaveCount(3);
  await expect(sessions.getByTestId("session-row").first()).toContainText("This device");
  const phoneRow = sessions.getByTestId("session-row").filter({ hasText: "Chrome on Android" });
  await phoneRow.getByRole("button", { name: /^Revoke/ }).click();
  await expect(sessions.getByTestId("session-row")).toHaveCount(2);

  // The phone is signed out on its next request.
  await b.goto("/account/");
  await expect(b).toHaveURL(/\/sign-in\/\?callbackURL=%2Faccount%2F$/);

  await sessions.getByRole("button", { name: "Sign out all other sessions" }).click();
  await expect(sessions.getByTestId("session-row")).toHaveCount(1);
  await expect(sessions.getByText("No other sessions are signed in.")).toBeVisible();
  await a.reload();
  await expect(a.getByRole("region", { name: "Active sessions" }).getByTestId("session-row")).toHaveCount(1);
  await laptop.close();
  await phone.close();
});
