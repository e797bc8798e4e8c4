import { expect, test, type APIRequestContext } from "@playwright/test";
import { PASSWORD, apiAs, expectHome, makeAdmin, signIn, signUpViaApi, uniqueUser, type User } from "./helpers";

/** A password sign-in through the API in a context of its own: its JSON answer. */
async function signInViaApi(playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } }, user: User) {
  const origin = new URL(process.env.GATEHOUSE_URL ?? "").origin;
  const api = await playwright.request.newContext({ baseURL: origin, extraHTTPHeaders: { origin } });
  const response = await api.post("/api/auth/sign-in/email", { data: { email: user.email, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { twoFactorRedirect?: boolean; token?: string; user?: { email: string } };
  await api.dispose();
  return body;
}

test("an admin resets a user's two-step verification: the password alone signs them in again", async ({ page, playwright, request }) => {
  const admin = uniqueUser("2fa-admin");
  const target = uniqueUser("2fa-target");
  await signUpViaApi(request, admin);
  makeAdmin(admin.email);

  // The user turns codes by email on through the API, with the session their sign-up left.
  const theirs = await apiAs(playwright, target);
  const enabled = await theirs.post("/api/auth/two-factor/enable", { data: { password: PASSWORD, method: "otp" } });
  expect(enabled.status(), await enabled.text()).toBe(200);
  expect(await signInViaApi(playwright, target)).toMatchObject({ twoFactorRedirect: true });

  await signIn(page, admin.email);
  await expectHome(page, admin);
  await page.goto("/admin/");
  await page.getByLabel("Search", { exact: true }).fill(target.email);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const row = page.getByTestId("user-row").filter({ hasText: target.email });
  await expect(row).toHaveCount(1);
  await row.getByRole("button", { name: `Manage ${target.email}` }).click();
  const dialog = page.getByRole("dialog", { name: `Manage ${target.name}` });
  const section = dialog.getByRole("region", { name: "Two-step verification" });
  await expect(section.getByTestId("two-factor-status")).toHaveText("On");

  await section.getByRole("button", { name: "Reset two-step verification" }).click();
  await section.getByRole("button", { name: "Yes, reset two-step verification" }).click();
  await expect(dialog.getByRole("status")).toHaveText("Two-step verification turned off; the user was signed out and emailed.");
  await expect(section.getByTestId("two-factor-status")).toHaveText("Off");
  await expect(section.getByRole("button")).toHaveCount(0);

  // They were told, and their session ended; the password alone now answers a session.
  await expect
    .poll(async () => {
      const response = await request.get(`/api/dev/mailbox?to=${encodeURIComponent(target.email)}`);
      return ((await response.json()) as { mails: { kind: string }[] }).mails.map((m) => m.kind);
    })
    .toContain("two-factor-reset-by-admin");
  expect(await (await theirs.get("/api/auth/get-session")).json()).toBeNull();
  await theirs.dispose();
  const again = await signInViaApi(playwright, target);
  expect(again.twoFactorRedirect).toBeUndefined();
  expect(again.token).toBeTruthy();
  expect(again.user?.email).toBe(target.email);
});
