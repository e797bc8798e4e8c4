import { expect, test, type APIRequestContext } from "@playwright/test";
import de from "../messages/de/auth.json";
import deCommon from "../messages/de/common.json";
import deHome from "../messages/de/home.json";
import pl from "../messages/pl/auth.json";
import plCommon from "../messages/pl/common.json";
import plHome from "../messages/pl/home.json";
import { uniqueUser } from "./helpers";

const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

/** The newest mail of `kind` to `to`, from the dev mailbox's API. */
async function mailOf(request: APIRequestContext, to: string, kind: string) {
  let found: { subject: string; text: string } | undefined;
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/dev/mailbox?to=${encodeURIComponent(to)}`);
        const { mails } = (await response.json()) as { mails: { kind: string; subject: string; text: string }[] };
        found = mails.find((m) => m.kind === kind);
        return found !== undefined;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return found as { subject: string; text: string };
}

test.describe("a German browser", () => {
  test.use({ locale: "de-DE" });

  test("gets the app in German, can switch to Polish, and the choice stays", async ({ page }) => {
    await page.goto("/sign-in/");
    await expect(page.getByRole("heading", { name: de["signIn.title"] })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "de");
    await expect(page).toHaveTitle(`${deCommon["title.signIn"]} · Gatehouse`);
    // The form's own words, its checks included, are German.
    await page.getByRole("button", { name: de["signIn.submit"] }).click();
    await expect(page.getByLabel(de["signIn.identifier"])).toBeFocused();
    await expect(page.getByLabel(de["signIn.identifier"])).toHaveAccessibleDescription(de["signIn.identifierRequired"]);

    await page.getByLabel(deCommon["shell.language"]).selectOption("pl");
    await expect(page.getByRole("heading", { name: pl["signIn.title"] })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "pl");
    await expect(page).toHaveTitle(`${plCommon["title.signIn"]} · Gatehouse`);
    await page.reload();
    await expect(page.getByRole("heading", { name: pl["signIn.title"] })).toBeVisible();
    await expect(page.getByLabel(plCommon["shell.language"])).toHaveValue("pl");
  });

  test("signs a user up in German; their choice is saved on the account and their mails speak it", async ({ page, playwright }) => {
    const user = uniqueUser("lang");
    await page.goto("/sign-up/");
    await expect(page.getByRole("heading", { name: de["signUp.title"] })).toBeVisible();
    await page.getByLabel(de["signUp.name"], { exact: true }).fill(user.name);
    await page.getByLabel(de["signUp.email"], { exact: true }).fill(user.email);
    await page.getByLabel(de["signUp.password"], { exact: true }).fill(user.password);
    await page.getByRole("button", { name: de["signUp.submit"] }).click();
    await expect(page.getByRole("heading", { name: deHome["welcome"].replace("{name}", user.name) })).toBeVisible();
    const language = async () => ((await (await page.request.get("/api/auth/get-session")).json()) as { user: { language: number } }).user.language;
    expect(await language()).toBe(6);

    // Chosen in the app: saved on the account (the mailer's language), and the app follows it.
    await page.getByLabel(deCommon["shell.language"]).selectOption("pl");
    await expect.poll(language).toBe(15);
    await expect(page.getByRole("heading", { name: plHome["welcome"].replace("{name}", user.name) })).toBeVisible();

    // A sign-in from another device: the user is told, in Polish, naming the device.
    const elsewhere = await playwright.request.newContext({
      baseURL: new URL(page.url()).origin,
      userAgent: FIREFOX_WINDOWS,
      extraHTTPHeaders: { origin: new URL(page.url()).origin },
    });
    const signIn = await elsewhere.post("/api/auth/sign-in/email", { data: { email: user.email, password: user.password } });
    expect(signIn.status(), await signIn.text()).toBe(200);
    await elsewhere.dispose();
    const mail = await mailOf(page.request, user.email, "new-device-sign-in");
    expect(mail.subject).toBe("Nowe logowanie do Twojego konta");
    expect(mail.text).toContain("Firefox, Windows");

    // A new language on a device that knew another: the account's wins at the next visit.
    await page.evaluate(() => window.localStorage.setItem("gatehouse.language", "de"));
    await page.goto("/account/");
    await expect(page.getByLabel(plCommon["shell.language"])).toHaveValue("pl");
  });
});
