import { screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderFresh } from "./render";

const { BillingSection } = await import("@/components/account/BillingSection");

function answer(status: number, body: unknown) {
  vi.stubGlobal("fetch", vi.fn().mockResolvedValue(new Response(JSON.stringify(body), { status })));
}

const empty = { customer: null, state: null, subscriptions: [], orders: [], benefitGrants: [], refunds: [] };

describe("BillingSection", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("says when there is nothing yet", async () => {
    answer(200, empty);
    renderFresh(<BillingSection userId="u1" />);
    expect(await screen.findByText("No subscriptions or benefits yet.")).toBeInTheDocument();
  });

  it("shows the active subscriptions, granted benefits and meters of the customer state", async () => {
    answer(200, {
      ...empty,
      state: {
        active_subscriptions: [
          { id: "s1", status: "active", amount: 2000, currency: "usd", recurring_interval: "month", current_period_end: "2026-10-28T10:21:36Z", product: { name: "Acme Pro" } },
        ],
        granted_benefits: [{ id: "g1", benefit_type: "license_keys", granted_at: "2026-08-14T10:21:38Z" }],
        active_meters: [{ id: "m1", meter_id: "api-requests", consumed_units: 12840, credited_units: 10000, balance: -2840 }],
      },
    });
    renderFresh(<BillingSection userId="u1" />);
    const subscription = await screen.findByTestId("subscription-row");
    expect(subscription).toHaveTextContent("Acme Pro");
    expect(subscription).toHaveTextContent(/\$20\.00 a month/);
    expect(screen.getByTestId("benefit-row")).toHaveTextContent("license keys");
    const meter = within(screen.getByRole("table", { name: "Meters" })).getByTestId("meter-row");
    expect(meter).toHaveTextContent("-2840");
  });

  it("names each meter as the subscriptions name it, the id only when none does", async () => {
    const meter = (meter_id: string, balance: number) => ({ id: `cm-${meter_id}`, meter_id, consumed_units: 5, credited_units: 0, balance });
    answer(200, {
      ...empty,
      state: {
        // The state's own subscriptions carry meters by id only.
        active_subscriptions: [{ id: "s1", status: "active", product_id: "p1", meters: [{ meter_id: "mt-api", consumed_units: 5 }] }],
        granted_benefits: [],
        active_meters: [meter("mt-api", -5), meter("mt-storage", 7), meter("mt-unknown", 9)],
      },
      subscriptions: [
        {
          id: "s1",
          status: "active",
          product: { name: "Acme Pro" },
          meters: [{ meter_id: "mt-api", meter: { id: "mt-api", name: "API requests" } }],
          prices: [
            { amount_type: "fixed" },
            { amount_type: "metered_unit", meter_id: "mt-storage", meter: { id: "mt-storage", name: "Storage (GB)" } },
          ],
        },
      ],
    });
    renderFresh(<BillingSection userId="u1" />);
    const usage = await screen.findByRole("region", { name: "Usage" });
    // Scrolls inside itself on a phone, and keys reach it.
    expect(usage).toHaveAttribute("tabindex", "0");
    const rows = within(within(usage).getByRole("table", { name: "Meters" })).getAllByTestId("meter-row");
    expect(rows.map((row) => row.querySelector("td")?.textContent)).toEqual(["API requests", "Storage (GB)", "mt-unknown"]);
    expect(rows[0]).not.toHaveTextContent("mt-api");
    // The state's subscription shows with its product, from the subscription's own JSON.
    expect(screen.getByTestId("subscription-row")).toHaveTextContent("Acme Pro");
  });

  it("says what went wrong and offers to try again", async () => {
    answer(401, { code: "UNAUTHORIZED", message: "Unauthorized" });
    renderFresh(<BillingSection userId="u1" />);
    expect(await screen.findByRole("alert")).toHaveTextContent("We could not load your billing.");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });
});
