import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { expectAccessible, expectHome, signIn, signUpViaApi, uniqueUser, openAccountSection } from "./helpers";

/** `curl` against get-session with the key, as a script would call the API: the JSON answer. */
function curlSession(key: string): { status: string; body: string } {
  const out = execFileSync(
    "curl",
    ["-s", "-w", "\n%{http_code}", "-H", `x-api-key: ${key}`, `${process.env.GATEHOUSE_URL}/api/auth/get-session`],
    { encoding: "utf8" },
  );
  const at = out.lastIndexOf("\n");
  return { body: out.slice(0, at), status: out.slice(at + 1) };
}

test("create an API key in the app, use it with curl, then turn it off and delete it", async ({ page, request }) => {
  const user = uniqueUser("keys");
  await signUpViaApi(request, user);
  await signIn(page, user.email);
  await expectHome(page, user);
  await openAccountSection(page, "API keys");

  const section = page.getByRole("region", { name: "API keys" });
  await expect(section.getByText("No API keys yet.")).toBeVisible();
  await section.getByRole("button", { name: "Create key" }).click();
  await expect(section.getByLabel("Name", { exact: true })).toHaveAccessibleDescription(/Enter a name for the key/);
  await section.getByLabel("Name", { exact: true }).fill("deploy script");
  await section.getByLabel("Expires").selectOption("30");
  await section.getByRole("button", { name: "Create key" }).click();

  const shown = section.getByTestId("new-api-key");
  await expect(shown).toContainText("shown only this once");
  const key = await shown.getByLabel("New API key").inputValue();
  expect(key).toMatch(/^[A-Za-z]{64}$/);
  await expect(section.getByTestId("api-key-row")).toHaveCount(1);
  await expect(section.getByTestId("api-key-row")).toContainText(key.slice(0, 6));
  await expectAccessible(page, "account with a new API key");

  const used = curlSession(key);
  expect(used.status).toBe("200");
  expect(JSON.parse(used.body).user.email).toBe(user.email);
  // The list says when it was last used.
  await page.reload();
  await expect(page.getByRole("region", { name: "API keys" }).getByTestId("api-key-row")).not.toContainText("last used never");

  const row = page.getByRole("region", { name: "API keys" }).getByTestId("api-key-row");
  await row.getByRole("button", { name: "Turn off deploy script" }).click();
  await expect(row.getByRole("button", { name: "Turn on deploy script" })).toBeVisible();
  expect(curlSession(key).status).toBe("401");

  await row.getByRole("button", { name: "Delete deploy script" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete key" }).click();
  await expect(page.getByRole("region", { name: "API keys" }).getByText("No API keys yet.")).toBeVisible();
  const gone = curlSession(key);
  expect(gone.status).toBe("401");
  expect(JSON.parse(gone.body).code).toBe("INVALID_API_KEY");
});
