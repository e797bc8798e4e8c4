import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests against a live standalone stack that serves this app (scripts/test.sh
 * starts one and sets GATEHOUSE_URL). The browser is Debian's Chromium driven through
 * playwright-core; no browser is downloaded. Failures keep a screenshot and a trace in
 * test-results/.
 *
 * Every spec runs on a desktop; the flows a user meets (signing up and in, the account, the
 * organization, invitations, languages, mail, the admin, keys and two-step sign-in) run again
 * on a 390 px touch phone, where every axe audit also checks nothing is wider than the screen.
 */
const baseURL = process.env.GATEHOUSE_URL;
if (!baseURL) {
  throw new Error("GATEHOUSE_URL is not set: start a stack (scripts/test.sh does) and point the tests at it");
}

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  timeout: 30_000,
  expect: { timeout: 7_000 },
  fullyParallel: true,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: true,
  reporter: [["list"]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
  },
  projects: [
    { name: "desktop", use: { ...devices["Desktop Chrome"] } },
    {
      name: "phone",
      testMatch: /\/(auth|account|admin|organization|invitations|languages|mail-flows|api-keys|two-factor)\.spec\.ts$/,
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
      },
    },
  ],
});
