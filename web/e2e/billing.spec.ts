import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectAccessible, expectFitsWidth, expectHome, signIn, signUpViaApi, uniqueUser, openAccountSection } from "./helpers";

/** A seller's receiver on loopback (the stack under test may reach it): answers 204, keeps each request. */
async function receiver() {
  const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      seen.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/billing`, seen, close: () => server.close() };
}

/** An organization of one's own, and its billing page reached from the organization page. */
async function openOwnBilling(page: Page) {
  const id = randomUUID().slice(0, 8);
  await page.goto("/organization/create/");
  await page.getByLabel("Name", { exact: true }).fill(`Seller ${id}`);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByRole("heading", { name: `Seller ${id}`, level: 1 })).toBeVisible();
  await page.getByRole("navigation", { name: "Organization sections" }).getByRole("link", { name: "Billing", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
}

test("an owner registers an endpoint, reveals its secret, sends a test event and watches it arrive", async ({ page, request }) => {
  const owner = uniqueUser("billing-owner");
  await signUpViaApi(request, owner);
  await signIn(page, owner.email);
  await expectHome(page, owner);
  const hooks = await receiver();
  try {
    await openOwnBilling(page);
    await expect(page.getByText("No endpoints yet.")).toBeVisible();
    await expect(page.getByText("Nothing has been bought for this organization yet.")).toBeVisible();

    // A bad address is refused next to its field, and nothing is added.
    const url = page.getByLabel("Endpoint URL");
    await url.fill("ftp://example.com/hooks");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page.getByText("Enter an absolute http or https address.")).toBeVisible();
    await expect(url).toHaveAttribute("aria-invalid", "true");

    await url.fill(hooks.url);
    await page.getByLabel("Description (optional)").fill("Orders");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const row = page.getByTestId("endpoint-row");
    await expect(row).toContainText(hooks.url);
    await expect(row.getByTestId("endpoint-state")).toHaveText("enabled");

    await row.getByRole("button", { name: "Reveal secret" }).click();
    const secret = row.getByTestId("endpoint-secret");
    await expect(secret).toContainText("whsec_");
    // Copied with one click where the page may use the clipboard; else it says to copy by hand.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(page.url()).origin });
    await secret.getByRole("button", { name: "Copy secret" }).click();
    if (await page.evaluate(() => window.isSecureContext)) {
      await expect(secret.getByRole("button", { name: "Copied" })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await secret.locator("code").first().textContent());
      await expect(secret.getByRole("button", { name: "Copy secret" })).toBeVisible({ timeout: 5000 });
    } else {
      await expect(secret.getByRole("alert")).toContainText("select the text and copy it yourself");
    }

    // Edited in a dialog that starts from its values; the server's refusal lands on its field.
    await row.getByRole("button", { name: `Edit ${hooks.url}` }).click();
    const edit = page.getByRole("dialog", { name: "Edit endpoint" });
    await expect(edit.getByLabel("Endpoint URL")).toHaveValue(hooks.url);
    await expect(edit.getByLabel("Description (optional)")).toHaveValue("Orders");
    await expect(edit.getByLabel(/^Standard Webhooks/)).toBeChecked();
    await edit.getByLabel("Endpoint URL").fill("http://[not-an-address/hook");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(edit.getByLabel("Endpoint URL")).toHaveAttribute("aria-invalid", "true");
    await expect(edit.getByText("Enter an absolute http or https address.")).toBeVisible();
    await expectAccessible(page, "billing: edit endpoint with a refused URL");
    await edit.getByLabel("Endpoint URL").fill(hooks.url);
    await edit.getByLabel("Description (optional)").fill("Orders and refunds");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(edit).toBeHidden();
    await expect(row.getByText("Endpoint saved.")).toBeVisible();
    await expect(row).toContainText("Orders and refunds");

    await row.getByRole("button", { name: "Send test event" }).click();
    await expect(row.getByText("Test event sent.")).toBeVisible();
    // The receiver gets it; the log shows it delivered, with the attempt's answer.
    await expect.poll(() => hooks.seen.length, { timeout: 10_000 }).toBe(1);
    expect(JSON.parse(hooks.seen[0]?.body ?? "{}")).toMatchObject({ type: "webhook.test" });
    const event = page.getByTestId("event-row").filter({ hasText: "webhook.test" });
    await expect(event.getByTestId("delivery")).toContainText("delivered", { timeout: 15_000 });
    // Its detail: the payload as sent, and each attempt with the receiver's answer.
    await event.getByRole("button", { name: /^Details of webhook\.test/ }).click();
    const detail = page.getByRole("dialog", { name: "webhook.test" });
    await expect(detail.getByRole("region", { name: "Payload" })).toContainText('"type": "webhook.test"');
    await expect(detail.getByTestId("attempt").first()).toContainText("HTTP 204");
    await expect(detail.getByTestId("attempt").first()).toContainText("succeeded");
    await expectAccessible(page, "billing event detail");
    await page.keyboard.press("Escape");
    await expect(detail).toBeHidden();
    await expect(event.getByRole("button", { name: /^Details of webhook\.test/ })).toBeFocused();
    await expectAccessible(page, "billing webhooks");

    // Replayed, it arrives again with the same webhook-id.
    await event.getByRole("button", { name: "Replay" }).click();
    await expect(event.getByText("Sent again to 1 endpoint(s).")).toBeVisible();
    await expect.poll(() => hooks.seen.length, { timeout: 10_000 }).toBe(2);
    expect(hooks.seen[1]?.headers["webhook-id"]).toBe(hooks.seen[0]?.headers["webhook-id"]);

    // The status filter narrows the log.
    await page.getByLabel("Delivery status").selectOption("failed");
    await expect(page.getByText("No events match these filters.")).toBeVisible();
    await page.getByLabel("Delivery status").selectOption("");

    // Disabled, it takes no test event; removed, it is gone.
    await row.getByRole("button", { name: "Disable" }).click();
    await expect(row.getByTestId("endpoint-state")).toHaveText("disabled");
    await expect(row.getByRole("button", { name: "Send test event" })).toBeDisabled();
    await row.getByRole("button", { name: `Remove ${hooks.url}` }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await expectAccessible(page, "billing: remove endpoint confirmation");
    await page.getByRole("dialog").getByRole("button", { name: "Remove endpoint" }).click();
    await expect(page.getByText("No endpoints yet.")).toBeVisible();
  } finally {
    hooks.close();
  }
});

/** The payments platform's delivery of `body` to the intake, signed as it signs (the secret's text is the key). */
async function deliverAsPolar(request: APIRequestContext, body: string) {
  const secret = process.env.POLAR_WEBHOOK_SECRET;
  if (!secret) throw new Error("POLAR_WEBHOOK_SECRET is not set (scripts/test.sh sets it)");
  const id = randomUUID();
  const timestamp = Math.floor(Date.now() / 1000).toString();
  const signature = createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64");
  const response = await request.post("/api/billing/webhooks", {
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` },
    data: body,
  });
  expect(response.status(), await response.text()).toBe(202);
}

/** A reference payload: Playwright runs from web/, and they are the service's test fixtures. */
function fixture(name: string) {
  return JSON.parse(readFileSync(join(process.cwd(), "..", "services/billing-webhook/tests/fixtures/polar", `${name}.json`), "utf-8")) as {
    data: Record<string, unknown> & { customer?: Record<string, unknown>; metadata?: Record<string, unknown> };
  };
}

test("a customer sees their subscription, benefits and usage on their account page", async ({ page, request }) => {
  const customer = uniqueUser("billing-customer");
  await signUpViaApi(request, customer);
  await signIn(page, customer.email);
  await expectHome(page, customer);
  await openAccountSection(page, "Billing");
  const billing = page.getByRole("region", { name: "Billing" });
  await expect(billing.getByText("No subscriptions or benefits yet.")).toBeVisible();

  // The payments platform tells of this user's customer: its state (external_id = the user id).
  const session = (await (await page.request.get("/api/auth/get-session")).json()) as { user: { id: string } };
  // A customer of its own: the suites before this one sent the same fixture, and an event no
  // newer than the state already filed changes nothing.
  const state = fixture("customer.state_changed");
  const customerId = randomUUID();
  state.data.id = customerId;
  state.data.external_id = session.user.id;
  // Its subscription as the payments platform sends it, which names the meter the state gives by id.
  const subscription = fixture("subscription.active");
  const subscriptionId = randomUUID();
  subscription.data.id = subscriptionId;
  subscription.data.customer_id = customerId;
  subscription.data.metadata = {};
  subscription.data.customer = { ...subscription.data.customer, id: customerId, external_id: session.user.id };
  for (const active of state.data.active_subscriptions as { id: string }[]) active.id = subscriptionId;
  await deliverAsPolar(request, JSON.stringify(subscription));
  await deliverAsPolar(request, JSON.stringify(state));

  await expect(async () => {
    await page.reload();
    await expect(billing.getByTestId("subscription-row").first()).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(billing.getByTestId("subscription-row").first()).toContainText("active");
  await expect(billing.getByTestId("benefit-row").first()).toBeVisible();
  await expect(billing.getByTestId("meter-row").first()).toContainText("-2840");
  // The meter by its name, not its id; the state's subscription with its product.
  await expect(async () => {
    await page.reload();
    await expect(billing.getByTestId("meter-row").first()).toContainText("API requests", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  const [meter] = state.data.active_meters as { meter_id: string }[];
  await expect(billing.getByTestId("meter-row").first()).not.toContainText(meter?.meter_id ?? "a meter id");
  await expect(billing.getByTestId("subscription-row").first()).toContainText("Acme Pro");
  await expectAccessible(page, "account with billing");

  // On a phone, the usage table scrolls inside its card.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(billing.getByTestId("meter-row").first()).toBeVisible();
  await expectFitsWidth(page, "account billing at 390 px");
});

test("an owner sees what was bought for their organization on its billing page", async ({ page, request }) => {
  const owner = uniqueUser("billing-buyer");
  await signUpViaApi(request, owner);
  await signIn(page, owner.email);
  await expectHome(page, owner);
  const name = `Buyer ${randomUUID().slice(0, 8)}`;
  await page.goto("/organization/create/");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  const session = (await (await page.request.get("/api/auth/get-session")).json()) as { session: { activeOrganizationId: string } };
  const organizationId = session.session.activeOrganizationId;

  // A subscription bought for the organization (its id as the checkout's referenceId), and its benefit grant.
  const subscription = fixture("subscription.created");
  subscription.data.id = randomUUID();
  subscription.data.metadata = { referenceId: organizationId };
  const grant = fixture("benefit_grant.created");
  grant.data.id = randomUUID();
  grant.data.subscription_id = subscription.data.id;
  await deliverAsPolar(request, JSON.stringify(subscription));
  await deliverAsPolar(request, JSON.stringify(grant));

  await page.goto("/organization/billing/");
  const purchases = page.getByRole("region", { name: "Subscriptions and orders" });
  await expect(async () => {
    await page.reload();
    await expect(purchases.getByTestId("organization-benefit-row").first()).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(purchases.getByTestId("organization-subscription-row")).toContainText("Acme Pro");
  await expect(purchases.getByTestId("organization-subscription-row")).toContainText("trialing");
  await expect(purchases.getByTestId("organization-benefit-row")).toContainText("granted");
  await expectAccessible(page, "organization billing with a subscription");
});

test("the billing page fits a 390 px phone, long URLs, secrets and payloads included", async ({ browser, request }) => {
  const owner = uniqueUser("billing-phone");
  await signUpViaApi(request, owner);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const hooks = await receiver();
  try {
    await signIn(page, owner.email);
    await expectHome(page, owner);
    await openOwnBilling(page);
    await expectFitsWidth(page, "empty billing page");

    // An address and a description with no place to break.
    const url = `${hooks.url}/${"a-rather-long-path-segment-".repeat(6)}end?token=${"x".repeat(60)}`;
    await page.getByLabel("Endpoint URL").fill(url);
    await page.getByLabel("Description (optional)").fill("d".repeat(200));
    await page.getByLabel("Event types (optional)").fill("order.paid, subscription.active, subscription.canceled, webhook.test");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const row = page.getByTestId("endpoint-row");
    await expect(row).toContainText("a-rather-long-path-segment");
    await row.getByRole("button", { name: "Reveal secret" }).click();
    await expect(row.getByTestId("endpoint-secret")).toContainText("whsec_");
    await row.getByRole("button", { name: "Rotate secret" }).click();
    await row.getByRole("button", { name: "Reveal secret" }).click();
    await expect(row.getByRole("button", { name: "Copy previous secret" })).toBeVisible();
    await expectFitsWidth(page, "endpoint with its secrets");

    await row.getByRole("button", { name: `Edit ${url}` }).click();
    await expect(page.getByRole("dialog", { name: "Edit endpoint" })).toBeVisible();
    await expectFitsWidth(page, "edit dialog");
    await expectAccessible(page, "billing on a phone: edit dialog");
    await page.getByRole("dialog", { name: "Edit endpoint" }).getByRole("button", { name: "Cancel" }).click();

    await row.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => hooks.seen.length, { timeout: 10_000 }).toBe(1);
    const event = page.getByTestId("event-row").filter({ hasText: "webhook.test" });
    await expect(event.getByTestId("delivery")).toContainText("delivered", { timeout: 15_000 });
    await expectFitsWidth(page, "event log");
    await event.getByRole("button", { name: /^Details of webhook\.test/ }).click();
    const detail = page.getByRole("dialog", { name: "webhook.test" });
    await expect(detail.getByTestId("attempt").first()).toContainText("HTTP 204");
    await expectFitsWidth(page, "event detail");
    await expectAccessible(page, "billing on a phone: event detail");
    // The payload scrolls inside its own box, which keys reach.
    const payload = detail.getByRole("region", { name: "Payload" });
    await payload.focus();
    await expect(payload).toBeFocused();
  } finally {
    hooks.close();
    await context.close();
  }
});
