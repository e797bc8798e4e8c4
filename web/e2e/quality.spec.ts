import { expect, test } from "@playwright/test";
import { apiAs, expectAccessible, expectHome, mailedLink, makeAdmin, signIn, signUpViaApi, uniqueUser, openUserMenu, openAccountSection, openOrganizationSection } from "./helpers";

test("every screen passes axe-core with no serious or critical violations", async ({ page, request, playwright }) => {
  test.slow();
  // The pages' Content-Security-Policy allows only the build's own inline scripts: the app must
  // run under it without a single refusal.
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  const screens = [
    "/sign-in/",
    "/sign-in/two-factor/?methods=totp,otp",
    "/sign-up/",
    "/forgot-password/",
    "/reset-password/?token=from-a-mail",
    "/reset-password/?error=INVALID_TOKEN",
    "/verify-email/",
    "/verify-email/?error=TOKEN_EXPIRED",
    "/account-deleted/",
    "/no-such-page/",
    "/api/auth/error?error=state_mismatch",
    "/dev/mailbox/",
    "/accept-invitation/an-invitation-id",
  ];
  for (const path of screens) {
    await page.goto(path);
    await expect(page.locator("h1")).toBeVisible();
    await expectAccessible(page, path);
  }
  // Errors shown inline are part of the page a user meets.
  await page.goto("/sign-up/");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByLabel("Email", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expectAccessible(page, "sign-up with errors");

  const admin = uniqueUser("a11y");
  await signUpViaApi(request, admin);
  makeAdmin(admin.email);
  await signIn(page, admin.email);
  await expectHome(page, admin);
  await expectAccessible(page, "home");
  await openAccountSection(page, "Sessions");
  await expect(page.getByRole("region", { name: "Active sessions" }).getByTestId("session-row").first()).toBeVisible();
  await expectAccessible(page, "account");
  await page.goto("/admin/");
  await expect(page.getByTestId("user-row").first()).toBeVisible();
  await expectAccessible(page, "admin");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByRole("dialog", { name: "Create user" })).toBeVisible();
  await expectAccessible(page, "admin: create user");
  await page.keyboard.press("Escape");
  await page.getByTestId("user-row").first().getByRole("button", { name: /^Manage / }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await expectAccessible(page, "admin: manage user");
  await page.keyboard.press("Escape");
  await page.goto("/account/");
  await page.getByRole("button", { name: "Delete account…" }).click();
  await expect(page.getByRole("dialog", { name: "Delete your account?" })).toBeVisible();
  await expectAccessible(page, "account: delete dialog");
  await page.keyboard.press("Escape");

  // Organizations: none yet, creating one, its page with each dialog, the switcher, and the
  // invitation page (an invitation to this user from someone else's organization, and a dead one).
  await page.goto("/organization/");
  await expect(page.getByText("You are not in any organization yet.")).toBeVisible();
  await expectAccessible(page, "organization: none yet");
  await page.goto("/organization/create/");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Name", { exact: true }).fill(`A11y ${admin.username}`);
  await expect(page.getByTestId("slug-status")).toHaveText(/is available\./);
  await expectAccessible(page, "organization: create");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByRole("heading", { name: `A11y ${admin.username}`, level: 1 })).toBeVisible();
  const invite = page.getByRole("form", { name: "Invite a member" });
  await invite.getByLabel("Email", { exact: true }).fill(uniqueUser("a11y-invitee").email);
  await invite.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByTestId("invitation-row")).toHaveCount(1);
  await expectAccessible(page, "organization");
  await page.getByRole("button", { name: /^Organization: / }).click();
  await expect(page.getByRole("button", { name: "Personal account" })).toBeVisible();
  await expectAccessible(page, "organization: switcher open");
  await page.keyboard.press("Escape");
  await openOrganizationSection(page, "Teams");
  await page.getByRole("button", { name: /^Manage team / }).first().click();
  await expect(page.getByTestId("team-member-row")).toHaveCount(1);
  await expectAccessible(page, "organization: team dialog");
  await page.keyboard.press("Escape");
  await openOrganizationSection(page, "API keys");
  await expect(page.getByRole("region", { name: "Organization API keys" })).toBeVisible();
  await expectAccessible(page, "organization: API keys");
  await openOrganizationSection(page, "Settings");
  await expectAccessible(page, "organization: settings");
  for (const [button, dialog] of [
    ["Leave organization…", /^Leave /],
    ["Delete organization…", /^Delete /],
  ] as const) {
    await page.getByRole("button", { name: button }).click();
    await expect(page.getByRole("dialog", { name: dialog })).toBeVisible();
    await expectAccessible(page, `organization: ${button}`);
    await page.keyboard.press("Escape");
  }
  const other = await apiAs(playwright, uniqueUser("a11y-inviter"));
  expect((await other.post("/api/auth/organization/create", { data: { name: "Elsewhere", slug: `elsewhere-${admin.username}` } })).status()).toBe(200);
  const invited = await other.post("/api/auth/organization/invite-member", { data: { email: admin.email, role: "admin" } });
  expect(invited.status(), await invited.text()).toBe(200);
  // The mailed link, whose token lets an unverified invitee see the invitation.
  await page.goto(await mailedLink(request, admin.email, "organization-invitation"));
  await expect(page.getByRole("button", { name: "Accept invitation" })).toBeVisible();
  await expectAccessible(page, "accept invitation");
  await page.goto("/accept-invitation/?id=no-such-invitation");
  await expect(page.getByRole("heading", { name: "This invitation cannot be used" })).toBeVisible();
  await expectAccessible(page, "accept invitation: not found");
  await other.dispose();
  expect(refused, "scripts refused by the Content-Security-Policy").toEqual([]);
});

test("a phone-width screen needs no sideways scrolling", async ({ browser, request }) => {
  const user = uniqueUser("phone");
  await signUpViaApi(request, user);
  makeAdmin(user.email);
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  // Against the device's width: a mobile browser widens its layout to fit what is too wide,
  // so measuring against the window's width would hide it.
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - 360);
  await page.goto("/sign-in/");
  expect(await overflow()).toBeLessThanOrEqual(0);
  await signIn(page, user.email);
  await expectHome(page, user);
  for (const path of ["/", "/account/"]) {
    await page.goto(path);
    await expect(page.locator("h1")).toBeVisible();
    expect(await overflow(), path).toBeLessThanOrEqual(0);
  }
  // The users table scrolls inside its own box, not the page.
  await page.goto("/admin/");
  await expect(page.getByTestId("user-row").first()).toBeVisible();
  expect(await overflow(), "/admin/").toBeLessThanOrEqual(0);
  // The organization page (members stack one per block), its switcher and the folded menu.
  const org = `Phone ${user.username}`;
  const created = await request.post("/api/auth/organization/create", {
    headers: { origin: new URL(process.env.GATEHOUSE_URL ?? "").origin },
    data: { name: org, slug: `phone-${user.username.replace(/_/g, "-")}` },
  });
  expect(created.status(), await created.text()).toBe(200);
  await page.goto("/organization/");
  await page.getByRole("button", { name: `Open ${org}` }).click();
  await expect(page.getByRole("heading", { name: org, level: 1 })).toBeVisible();
  expect(await overflow(), "/organization/").toBeLessThanOrEqual(0);
  await page.getByRole("button", { name: `Organization: ${org}` }).click();
  await expect(page.getByRole("button", { name: "Personal account" })).toBeInViewport();
  expect(await overflow(), "switcher").toBeLessThanOrEqual(0);
  await page.keyboard.press("Escape");
  await expect((await openUserMenu(page)).getByRole("button", { name: "Sign out" })).toBeInViewport();
  expect(await overflow(), "menu").toBeLessThanOrEqual(0);
  for (const path of ["/organization/create/", "/accept-invitation/an-invitation-id"]) {
    await page.goto(path);
    await expect(page.locator("h1")).toBeVisible();
    expect(await overflow(), path).toBeLessThanOrEqual(0);
  }
  await context.close();
});

test("without JavaScript the page says so", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  for (const path of ["/sign-in/", "/sign-up/", "/account/", "/admin/", "/organization/", "/accept-invitation/an-id"]) {
    await page.goto(path);
    // (getByText skips <noscript>, so the paragraph is found by its class.)
    await expect(page.locator("p.noscript"), path).toHaveText(/Gatehouse needs JavaScript to sign you in/);
    await expect(page.locator("p.noscript"), path).toBeVisible();
    await expect(page.locator("#main"), path).toBeHidden();
  }
  await context.close();
});

test("pages do not shift while they load (cumulative layout shift under 0.1)", async ({ page, request }) => {
  const user = uniqueUser("cls");
  await signUpViaApi(request, user);
  await page.addInitScript(() => {
    (window as unknown as { __cls: number }).__cls = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) (window as unknown as { __cls: number }).__cls += entry.value;
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  const cls = () => page.evaluate(() => (window as unknown as { __cls: number }).__cls);
  await page.goto("/sign-in/");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(await cls(), "/sign-in/").toBeLessThan(0.1);
  await signIn(page, user.email);
  await expectHome(page, user);
  for (const path of ["/", "/account/", "/organization/"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    expect(await cls(), path).toBeLessThan(0.1);
  }
});
