import { execSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, type APIRequestContext, type Page } from "@playwright/test";

export const PASSWORD = "correct-horse-battery";

export function uniqueUser(prefix = "e2e") {
  const id = randomUUID().slice(0, 8);
  return {
    name: `${prefix[0]?.toUpperCase()}${prefix.slice(1)} ${id}`,
    email: `${prefix}-${id}@example.com`,
    username: `${prefix}_${id}`,
    password: PASSWORD,
  };
}

export type User = ReturnType<typeof uniqueUser>;

/** Signs a user up straight through the API (no browser), leaving no session behind. */
export async function signUpViaApi(request: APIRequestContext, user: User, withUsername = false) {
  const response = await request.post("/api/auth/sign-up/email", {
    headers: { origin: new URL(process.env.GATEHOUSE_URL ?? "").origin },
    data: {
      name: user.name,
      email: user.email,
      password: user.password,
      ...(withUsername ? { username: user.username } : {}),
    },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** Makes `email` an admin the way an operator does (`gatehouse admin grant`). */
export function makeAdmin(email: string) {
  const command = process.env.ADMIN_GRANT_CMD;
  if (!command) throw new Error("ADMIN_GRANT_CMD is not set (scripts/test.sh sets it)");
  execSync(`${command} '${email}'`, { stdio: "pipe" });
}

export async function signIn(page: Page, identifier: string, password = PASSWORD) {
  await page.goto("/sign-in/");
  await page.getByLabel("Email or username", { exact: true }).fill(identifier);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Opens the signed-in user's menu (their avatar, top right). */
export async function openUserMenu(page: Page) {
  const button = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: /^Account menu of / });
  if ((await button.getAttribute("aria-expanded")) !== "true") await button.click();
  return page.getByRole("navigation", { name: "Main" });
}

/** Opens a section of a page in sections from the navigation named `navigation`. */
async function openSection(page: Page, navigation: string, section: string) {
  const link = page.getByRole("navigation", { name: navigation }).getByRole("link", { name: section, exact: true });
  await link.click();
  await expect(link).toHaveAttribute("aria-current", "page");
}

/** Opens a section of the account page (`/account/` first if elsewhere). */
export async function openAccountSection(page: Page, section: "Profile" | "Security" | "Sessions" | "API keys" | "Billing") {
  if (new URL(page.url()).pathname !== "/account/") await page.goto("/account/");
  await openSection(page, "Account sections", section);
}

/** Opens a section of the organization page (already on it). */
export async function openOrganizationSection(page: Page, section: "Members" | "Teams" | "API keys" | "Settings") {
  await openSection(page, "Organization sections", section);
}

/** Signs out through the user's menu. */
export async function signOut(page: Page) {
  const menu = await openUserMenu(page);
  await menu.getByRole("button", { name: "Sign out", exact: true }).click();
}

export async function expectHome(page: Page, user: User) {
  await expect(page.getByRole("heading", { name: `Welcome, ${user.name}` })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
}

/**
 * Opens the newest mail to `to` whose subject matches in the dev mailbox (it refreshes every
 * two seconds) and follows its link, as a user reading their mail would.
 */
export async function followMailLink(page: Page, to: string, subject: RegExp) {
  await page.goto("/dev/mailbox/");
  const row = page.getByTestId("mail-row").filter({ hasText: `to ${to}` }).filter({ hasText: subject }).first();
  await expect(row).toBeVisible({ timeout: 10_000 });
  await row.getByRole("button").click();
  const mail = page.getByTestId("mail-open");
  await expect(mail).toContainText(to);
  await mail.getByRole("link").first().click();
}

/**
 * The link in the newest mail of `kind` to `to`, read from the dev mailbox's API
 * (`GET /api/dev/mailbox?to=`) as soon as the mailer has logged it.
 */
export async function mailedLink(request: APIRequestContext, to: string, kind: string): Promise<string> {
  let text = "";
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/dev/mailbox?to=${encodeURIComponent(to)}`);
        const { mails } = (await response.json()) as { mails: { kind: string; text: string }[] };
        text = mails.find((m) => m.kind === kind)?.text ?? "";
        return text !== "";
      },
      { message: `a ${kind} mail to ${to}`, timeout: 10_000 },
    )
    .toBe(true);
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  if (!link) throw new Error(`no link in the ${kind} mail to ${to}:\n${text}`);
  return link;
}

/** An API client signed in as `user` (a new account), for setting the scene of a test. */
export async function apiAs(playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } }, user: User) {
  const origin = new URL(process.env.GATEHOUSE_URL ?? "").origin;
  const api = await playwright.request.newContext({ baseURL: origin, extraHTTPHeaders: { origin } });
  await signUpViaApi(api, user);
  return api;
}

/**
 * Nothing wider than the screen: no card, row or open dialog (in the top layer, which the page's
 * width does not see), and no sideways scrolling. Measured against the device's width: a mobile
 * browser widens its layout to fit what is too wide, so the window's own width would hide it.
 */
export async function expectFitsWidth(page: Page, screen: string) {
  const device = page.viewportSize()?.width ?? 0;
  const found = await page.evaluate((width) => {
    const tooWide = (element: Element) => element.getBoundingClientRect().right > width + 0.5;
    const wide = [...document.querySelectorAll<HTMLElement>(".card, .list-row, dialog[open]")]
      .filter(tooWide)
      .map((element) => element.dataset.testid ?? element.className);
    // The innermost elements that stick out: what to fix, named in the failure.
    const culprits = [...document.querySelectorAll<HTMLElement>("main *, dialog[open] *")]
      .filter((element) => tooWide(element) && ![...element.children].some(tooWide))
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}: ${element.textContent?.slice(0, 40)}`);
    return { overflow: document.documentElement.scrollWidth - width, wide: wide.length > 0 ? [...wide, ...culprits] : wide };
  }, device);
  expect(found.wide, `${screen}: wider than a ${device} px screen`).toEqual([]);
  expect(found.overflow, `${screen}: scrolls sideways on a ${device} px screen`).toBeLessThanOrEqual(0);
}

/** axe-core on the page as it is now: no serious or critical violation; on a phone, [`expectFitsWidth`] too. */
export async function expectAccessible(page: Page, screen: string) {
  const device = page.viewportSize()?.width ?? 0;
  if (device > 0 && device <= 480) await expectFitsWidth(page, screen);
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const blocking = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(blocking, `${screen}: ${blocking.join("\n")}`).toEqual([]);
}
