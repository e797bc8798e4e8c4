/**
 * Nothing on the billing screens may be wider than a 390 px phone. jsdom lays nothing out, so
 * this checks the means (the real widths are measured by e2e/billing.spec.ts): every table and
 * block of raw text scrolls inside itself, and rows wrap long URLs and secrets anywhere.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderFresh } from "./render";

const { BillingSection } = await import("@/components/account/BillingSection");
const { EndpointsSection } = await import("@/components/billing/EndpointsSection");
const { EventLog } = await import("@/components/billing/EventLog");

// Vitest runs from web/ (jsdom's import.meta.url is not a file URL).
const css = readFileSync(join(process.cwd(), "public/theme.css"), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
/** The declarations of the rule whose selector list includes `selector`. */
function rule(selector: string): string {
  const found = [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)].find(([, selectors]) =>
    (selectors ?? "").split(",").some((s) => s.trim() === selector),
  );
  return found?.[2] ?? "";
}

const long = `https://hooks.example.com/${"very-long-segment-".repeat(8)}end`;
const endpoint = { id: "ep_1", organizationId: "o", url: long, description: "x".repeat(120), eventTypes: [], enabled: true, polarSigning: false, createdAt: "", updatedAt: "" };

function answer(routes: Record<string, unknown>) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: string) => new Response(JSON.stringify(routes[input.split("?")[0] ?? ""] ?? {}), { status: 200 })),
  );
}

describe("the billing screens at phone width", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("has scroll containers that cannot widen their card, and rows that wrap anywhere", () => {
    for (const selector of [".billing-scroll", ".billing-pre"]) {
      expect(rule(selector), selector).toMatch(/overflow:\s*auto/);
      expect(rule(selector), selector).toMatch(/contain:\s*inline-size/);
      expect(rule(selector), selector).toMatch(/max-width:\s*100%/);
    }
    expect(rule(".billing-row-body")).toMatch(/overflow-wrap:\s*anywhere/);
    expect(rule(".billing-row-body")).toMatch(/min-width:\s*0/);
  });

  it("puts the meters table in a scroll container", async () => {
    answer({
      "/api/billing/customer": {
        customer: null,
        subscriptions: [],
        orders: [],
        benefitGrants: [],
        refunds: [],
        state: { active_meters: [{ id: "m1", meter_id: "a-meter-id-that-is-long", consumed_units: 1, credited_units: 2, balance: 1 }] },
      },
    });
    renderFresh(<BillingSection userId="u1" />);
    const table = await screen.findByRole("table", { name: "Meters" });
    expect(table.parentElement).toHaveClass("billing-scroll");
  });

  it("wraps an endpoint's long URL and description", async () => {
    answer({ "/api/billing/endpoints": [endpoint] });
    renderFresh(<EndpointsSection userId="u1" organizationId="o" />);
    const row = await screen.findByTestId("endpoint-row");
    expect(within(row).getByText(long).closest(".billing-row-body")).not.toBeNull();
  });

  it("scrolls the payload and answers inside themselves, and has no table in the detail", async () => {
    const delivery = { id: "d1", endpointId: "ep_1", status: "failed", attempts: 1, createdAt: "" };
    const event = { id: "ev_1", webhookId: "w", type: "order.paid", receivedAt: "2026-09-14T10:21:30Z", origin: "polar", deliveries: [delivery] };
    answer({
      "/api/billing/endpoints": [endpoint],
      "/api/billing/events": { events: [event], hasMore: false },
      "/api/billing/events/ev_1": {
        ...event,
        payload: { url: long },
        deliveries: [{ ...delivery, attemptLog: [{ id: "a1", trigger: "scheduled", startedAt: "", durationMs: 1, responseStatus: 500, responseBody: "y".repeat(2048), succeeded: false }] }],
      },
    });
    const user = userEvent.setup();
    renderFresh(<EventLog userId="u1" organizationId="o" />);
    const row = await screen.findByTestId("event-row");
    expect(within(row).getByText(long, { exact: false }).closest(".billing-row-body")).not.toBeNull();
    await user.click(within(row).getByRole("button", { name: /^Details/ }));
    const dialog = screen.getByRole("dialog");
    await within(dialog).findByTestId("event-detail");
    const blocks = dialog.querySelectorAll("pre");
    expect(blocks).toHaveLength(2);
    for (const pre of blocks) expect(pre).toHaveClass("billing-pre");
    expect(dialog.querySelector("table")).toBeNull();
  });
});
