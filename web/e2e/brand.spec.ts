import { expect, test } from "@playwright/test";

// The test stack runs with BRAND_ACCENT=#0f766e and BRAND_ACCENT_DARK=#5eead4 (scripts/test.sh).
test("the app wears the operator's accent colour, light and dark, with text that reads on it", async ({ page }) => {
  await page.goto("/sign-in/");
  const button = page.getByRole("button", { name: "Sign in" });
  await expect(button).toHaveCSS("background-color", "rgb(15, 118, 110)");
  await expect(button).toHaveCSS("color", "rgb(255, 255, 255)");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(button).toHaveCSS("background-color", "rgb(94, 234, 212)");
  await expect(button).toHaveCSS("color", "rgb(0, 0, 0)");
  // Served by the gateway, not built into the app: a restart with other settings shows at once.
  const css = await page.request.get("/brand.css");
  expect(css.headers()["cache-control"]).toBe("no-cache");
  expect(await css.text()).toContain("--accent: #0f766e;");
});
