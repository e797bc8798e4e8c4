import { expect, test } from "@playwright/test";
import { expectHome, signIn, signUpViaApi, uniqueUser } from "./helpers";

test("the dev mailbox lists the standalone stack's mail, or says there is none yet", async ({ page, request }) => {
  const api = await request.get("/api/dev/mailbox");
  expect(api.status()).toBe(200);
  expect(api.headers()["cache-control"]).toBe("no-store");
  const { mails } = (await api.json()) as { mails: unknown[] };
  await page.goto("/dev/mailbox/");
  await expect(page.getByRole("heading", { name: "Mailbox", level: 1 })).toBeVisible();
  // Other tests send mail meanwhile: the page shows at least what the API listed, at most 50.
  const rows = page.getByTestId("mail-row");
  if (mails.length === 0) {
    await expect(page.getByText("No mails yet.").or(rows.first())).toBeVisible();
  } else {
    await expect(rows.nth(Math.min(mails.length, 50) - 1)).toBeVisible();
    await expect(page.getByTestId("mail-open")).toBeVisible();
  }
  expect(await rows.count()).toBeLessThanOrEqual(50);
});

test("the home page links the dev mailbox when the stack has one", async ({ page, request }) => {
  const user = uniqueUser("mailbox");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await page.getByRole("link", { name: "Mailbox" }).click();
  await expect(page.getByRole("heading", { name: "Mailbox", level: 1 })).toBeVisible();
});
