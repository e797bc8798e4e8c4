import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import jsQR from "jsqr";
import { Secret, TOTP } from "otpauth";
import { PNG } from "pngjs";
import { PASSWORD, expectAccessible, expectHome, signIn, signUpViaApi, uniqueUser, type User, signOut as signOutByMenu, openAccountSection } from "./helpers";

/**
 * The code an authenticator app shows `steps` periods (30 s) from now. The server takes each
 * step's code once, and the neighbouring steps' too: after confirming the set-up with the
 * current step's code, a sign-in uses the next one.
 */
function appCode(secret: string, steps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });
}

/** The QR code on screen read as a phone's camera would: a screenshot, decoded. */
async function scanQrCode(page: Page): Promise<string> {
  const image = PNG.sync.read(await page.getByRole("img", { name: "QR code for your authenticator app" }).screenshot());
  const found = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (!found) throw new Error("no QR code in the screenshot");
  return found.data;
}

/** Signs `user` in and turns two-step verification on from the account page; the app's secret. */
async function turnOn(page: Page, user: User): Promise<string> {
  await signIn(page, user.email);
  await expectHome(page, user);
  await openAccountSection(page, "Security");
  const section = page.getByRole("region", { name: "Two-step verification" });
  await expect(section.getByTestId("two-factor-status")).toHaveText(/^Off/);
  await section.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await section.getByRole("button", { name: "Turn on two-step verification" }).click();

  const uri = new URL(await scanQrCode(page));
  expect(uri.protocol).toBe("otpauth:");
  expect(uri.searchParams.get("issuer")).toBe("Gatehouse");
  const secret = uri.searchParams.get("secret") ?? "";
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  // The key shown as text, in groups of four, is the one in the QR code.
  await expect(section.getByTestId("totp-secret")).toHaveText(secret.match(/.{1,4}/g)?.join(" ") ?? "");

  await section.getByLabel("Code from the app", { exact: true }).fill(appCode(secret));
  await section.getByRole("button", { name: "Confirm" }).click();
  const codes = section.getByTestId("backup-codes");
  await expect(codes.getByRole("listitem")).toHaveCount(10);
  await expect(section.getByTestId("two-factor-status")).toHaveText(/^On/);
  return secret;
}

/** The backup codes on screen, then gone ("I have saved them"). */
async function saveBackupCodes(page: Page): Promise<string[]> {
  const codes = page.getByTestId("backup-codes");
  const list = await codes.getByRole("listitem").allTextContents();
  await codes.getByRole("button", { name: "I have saved them" }).click();
  await expect(codes).toHaveCount(0);
  return list;
}

async function signOut(page: Page) {
  await signOutByMenu(page);
  await expect(page).toHaveURL(/\/sign-in\/$/);
}

/** The 6-digit code of the newest sign-in code mail to `to`, from the dev mailbox's API. */
async function mailedCode(request: APIRequestContext, to: string, after: Set<string>): Promise<string> {
  let code = "";
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/dev/mailbox?to=${encodeURIComponent(to)}`);
        const { mails } = (await response.json()) as { mails: { id: string; kind: string; text: string }[] };
        const mail = mails.find((m) => m.kind === "two-factor-code" && !after.has(m.id));
        code = /^\s*(\d{6})\s*$/m.exec(mail?.text ?? "")?.[1] ?? "";
        return code !== "";
      },
      { message: `a sign-in code mailed to ${to}`, timeout: 10_000 },
    )
    .toBe(true);
  return code;
}

test("turn on with the QR code, sign in with the app's code, and a trusted browser skips it after a restart", async ({ browser, page, request }) => {
  // Two browsers and two accessibility checks.
  test.slow();
  const user = uniqueUser("totp");
  await signUpViaApi(request, user);
  const secret = await turnOn(page, user);
  await expectAccessible(page, "account: backup codes");
  await saveBackupCodes(page);
  await signOut(page);

  // Not remembered, so the session ends with the browser; the trusted-device mark does not.
  await page.goto("/sign-in/?callbackURL=%2Faccount%2F");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await page.getByLabel("Email or username", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Remember me on this device").uncheck();
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/sign-in\/two-factor\/\?methods=totp,otp&callbackURL=%2Faccount%2F$/);
  const code = page.getByLabel("Code from your authenticator app", { exact: true });
  await expect(code).toBeFocused();
  await expectAccessible(page, "two-factor page");

  await code.fill("000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(code).toHaveAccessibleDescription("This code is not right. Check it and try again.");
  await code.fill(appCode(secret, 1));
  await page.getByLabel("Trust this device for 30 days").check();
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/account\/$/);
  await openAccountSection(page, "Security");
  await expect(page.getByRole("region", { name: "Two-step verification" }).getByTestId("two-factor-status")).toHaveText(/^On/);

  // A browser restart: a new context with only the cookies that outlive the browser.
  const { cookies } = await page.context().storageState();
  const kept = cookies.filter((c) => c.expires > 0);
  expect(kept.map((c) => c.name)).toContain("better-auth.trust_device");
  expect(kept.map((c) => c.name)).not.toContain("better-auth.session_token");
  const restarted = await browser.newContext({ storageState: { cookies: kept, origins: [] } });
  const again = await restarted.newPage();
  await signIn(again, user.email);
  await expectHome(again, user);
  await restarted.close();
});

test("sign in with a code sent by email, after a wrong one", async ({ page, request }) => {
  const user = uniqueUser("otp");
  await signUpViaApi(request, user);
  await turnOn(page, user);
  await saveBackupCodes(page);
  await signOut(page);

  await signIn(page, user.email);
  await expect(page).toHaveURL(/\/sign-in\/two-factor\/\?methods=totp,otp$/);
  await page.getByRole("button", { name: "Email me a code" }).click();
  await expect(page.getByRole("status")).toHaveText("We sent a code to your email address.");
  const code = page.getByLabel("Code from the email", { exact: true });
  await expect(code).toBeFocused();
  const mailed = await mailedCode(request, user.email, new Set());
  await code.fill(mailed === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(code).toHaveAccessibleDescription("This code is not right. Check it and try again.");
  await code.fill(mailed);
  await page.getByRole("button", { name: "Verify" }).click();
  await expectHome(page, user);
});

test("a backup code signs in once; turned off, the password alone signs in", async ({ page, request }) => {
  const user = uniqueUser("backup");
  await signUpViaApi(request, user);
  await turnOn(page, user);
  const [first] = await saveBackupCodes(page);
  await signOut(page);

  await signIn(page, user.email);
  await page.getByRole("button", { name: "Use a backup code" }).click();
  await page.getByLabel("Backup code", { exact: true }).fill(first ?? "");
  await page.getByRole("button", { name: "Verify" }).click();
  await expectHome(page, user);

  await openAccountSection(page, "Security");
  const section = page.getByRole("region", { name: "Two-step verification" });
  await section.getByRole("button", { name: "Regenerate backup codes" }).click();
  await section.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await section.getByRole("button", { name: "Regenerate backup codes" }).click();
  await expect(section.getByRole("heading", { name: "Your new backup codes" })).toBeFocused();
  const fresh = await saveBackupCodes(page);
  expect(fresh).toHaveLength(10);
  expect(fresh).not.toContain(first);

  await section.getByRole("button", { name: "Turn off" }).click();
  await section.getByLabel("Password", { exact: true }).fill("not-my-password");
  await section.getByRole("button", { name: "Turn off two-step verification" }).click();
  await expect(section.getByLabel("Password", { exact: true })).toHaveAccessibleDescription("Your current password is not right.");
  await section.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await section.getByRole("button", { name: "Turn off two-step verification" }).click();
  await expect(section.getByTestId("two-factor-status")).toHaveText(/^Off/);
  await expectAccessible(page, "account: two-step verification off");

  await signOut(page);
  await signIn(page, user.email);
  await expectHome(page, user);
});
