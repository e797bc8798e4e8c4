import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { expectHome, makeAdmin, signIn, signUpViaApi, uniqueUser } from "./helpers";

/** axe-core on the page as it is now: no serious or critical violation. */
async function expectAccessible(page: Page, screen: string) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const blocking = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(blocking, `${screen}: ${blocking.join("\n")}`).toEqual([]);
}

test("every screen passes axe-core with no serious or critical violations", async ({ page, request }) => {
  // The pages' Content-Security-Policy allows only the build's own inline scripts: the app must
  // run under it without a single refusal.
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  const screens = [
    "/sign-in/",
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
  await page.goto("/account/");
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
  expect(refused, "scripts refused by the Content-Security-Policy").toEqual([]);
});

test("a phone-width screen needs no sideways scrolling", async ({ browser, request }) => {
  const user = uniqueUser("phone");
  await signUpViaApi(request, user);
  makeAdmin(user.email);
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
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
  await context.close();
});

test("without JavaScript the page says so", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  for (const path of ["/sign-in/", "/sign-up/", "/account/", "/admin/"]) {
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
  for (const path of ["/", "/account/"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    expect(await cls(), path).toBeLessThan(0.1);
  }
});
