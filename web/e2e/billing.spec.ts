import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { expectAccessible, expectHome, signIn, signUpViaApi, uniqueUser } from "./helpers";

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

test("an owner registers an endpoint, reveals its secret, sends a test event and watches it arrive", async ({ page, request }) => {
  const owner = uniqueUser("billing-owner");
  await signUpViaApi(request, owner);
  await signIn(page, owner.email);
  await expectHome(page, owner);
  const hooks = await receiver();
  try {
    // An organization of one's own, then its billing page from the organization page.
    const id = randomUUID().slice(0, 8);
    await page.goto("/organization/create/");
    await page.getByLabel("Name", { exact: true }).fill(`Seller ${id}`);
    await page.getByRole("button", { name: "Create organization" }).click();
    await expect(page.getByRole("heading", { name: `Seller ${id}`, level: 1 })).toBeVisible();
    await page.getByRole("link", { name: "Open billing" }).click();
    await expect(page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
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
    await expect(row.getByTestId("endpoint-secret")).toContainText("whsec_");

    await row.getByRole("button", { name: "Send test event" }).click();
    await expect(row.getByText("Test event sent.")).toBeVisible();
    // The receiver gets it; the log shows it delivered, with the attempt's answer.
    await expect.poll(() => hooks.seen.length, { timeout: 10_000 }).toBe(1);
    expect(JSON.parse(hooks.seen[0]?.body ?? "{}")).toMatchObject({ type: "webhook.test" });
    const event = page.getByTestId("event-row").filter({ hasText: "webhook.test" });
    await expect(event.getByTestId("delivery")).toContainText("delivered", { timeout: 15_000 });
    await event.getByRole("button", { name: "Attempts" }).click();
    await expect(event.getByTestId("attempt").first()).toContainText("204");
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
  await page.goto("/account/");
  const billing = page.getByRole("region", { name: "Billing" });
  await expect(billing.getByText("No subscriptions or benefits yet.")).toBeVisible();

  // The payments platform tells of this user's customer: its state (external_id = the user id).
  const session = (await (await page.request.get("/api/auth/get-session")).json()) as { user: { id: string } };
  // A customer of its own: the suites before this one sent the same fixture, and an event no
  // newer than the state already filed changes nothing.
  const state = fixture("customer.state_changed");
  state.data.id = randomUUID();
  state.data.external_id = session.user.id;
  await deliverAsPolar(request, JSON.stringify(state));

  await expect(async () => {
    await page.reload();
    await expect(billing.getByTestId("subscription-row").first()).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(billing.getByTestId("subscription-row").first()).toContainText("active");
  await expect(billing.getByTestId("benefit-row").first()).toBeVisible();
  await expect(billing.getByTestId("meter-row").first()).toContainText("-2840");
  await expectAccessible(page, "account with billing");
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
