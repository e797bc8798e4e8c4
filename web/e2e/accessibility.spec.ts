import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { apiAs, expectAccessible, expectHome, makeAdmin, openAccountSection, openUserMenu, signIn, signUpViaApi, uniqueUser } from "./helpers";

// The screens and states this issue added, audited by axe-core (0 serious or critical
// violations) on a desktop and on a 390 px phone, in the operator's accent colour (the test
// stack's BRAND_ACCENT) and in another language.
for (const [device, viewport] of [
  ["desktop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
] as const) {
  test(`the shell, the account's sections, the safeguards and other languages pass axe on a ${device}`, async ({ browser, request, playwright }) => {
    test.slow();
    const context = await browser.newContext({ viewport, isMobile: device === "phone", hasTouch: device === "phone" });
    const page = await context.newPage();
    const admin = uniqueUser(`a11y-${device}`);
    await signUpViaApi(request, admin);
    makeAdmin(admin.email);
    // Invited by someone else: the home page lists it.
    const inviter = await apiAs(playwright, uniqueUser("a11y-inviter"));
    const id = randomUUID().slice(0, 8);
    expect((await inviter.post("/api/auth/organization/create", { data: { name: `Globex ${id}`, slug: `globex-${id}` } })).status()).toBe(200);
    expect((await inviter.post("/api/auth/organization/invite-member", { data: { email: admin.email, role: "admin" } })).status()).toBe(200);
    await inviter.dispose();

    await signIn(page, admin.email);
    await expectHome(page, admin);
    // Unverified: the banner at the bottom of the window.
    await expect(page.getByRole("region", { name: "Email verification" })).toBeVisible();
    await expectAccessible(page, `${device}: home with the verification banner`);
    await openUserMenu(page);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toBeVisible();
    await expectAccessible(page, `${device}: user menu open`);
    await page.keyboard.press("Escape");

    for (const section of ["Profile", "Security", "Sessions", "API keys", "Billing"] as const) {
      await openAccountSection(page, section);
      await expect(page.locator("h2").first()).toBeVisible();
      await expectAccessible(page, `${device}: account, ${section}`);
    }

    // The admin's ban, asked first, with how long and why.
    await page.goto("/admin/");
    const row = page.getByTestId("user-row").filter({ hasText: "a11y-inviter" }).first();
    await row.getByRole("button", { name: /^Manage / }).click();
    const manage = page.getByRole("dialog", { name: /^Manage / });
    await expect(manage).toBeVisible();
    await expectAccessible(page, `${device}: manage user with sessions`);
    await manage.getByLabel("Reason (optional)").fill("Spam");
    await manage.getByRole("button", { name: "Ban user" }).click();
    await expect(page.getByRole("dialog", { name: /^Ban / })).toBeVisible();
    await expectAccessible(page, `${device}: ban confirmation`);
    await page.keyboard.press("Escape");

    // Another language, another script.
    await page.goto("/account/");
    await page.getByLabel("Language").selectOption("uk");
    await expect(page.locator("html")).toHaveAttribute("lang", "uk");
    await expectAccessible(page, `${device}: account in Ukrainian`);
    await page.getByLabel("Мова").selectOption("en");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await context.close();
  });
}
