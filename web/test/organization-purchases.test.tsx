import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderFresh } from "./render";

const { OrganizationPurchases } = await import("@/components/billing/OrganizationPurchases");

function answer(status: number, body: unknown) {
  const fetch = vi.fn().mockResolvedValue(new Response(JSON.stringify(body), { status }));
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

const empty = { organizationId: "org1", subscriptions: [], orders: [], benefitGrants: [], refunds: [] };

describe("OrganizationPurchases", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("asks for the named organization and says when nothing was bought", async () => {
    const fetch = answer(200, empty);
    renderFresh(<OrganizationPurchases userId="u1" organizationId="org 1" />);
    expect(await screen.findByText("Nothing has been bought for this organization yet.")).toBeInTheDocument();
    expect(fetch).toHaveBeenCalledWith("/api/billing/customer/organization?organizationId=org%201", expect.anything());
  });

  it("shows the subscriptions, orders and benefit grants bought for it", async () => {
    answer(200, {
      ...empty,
      subscriptions: [{ id: "s1", status: "active", amount: 2000, currency: "usd", recurring_interval: "month", product: { name: "Team Pro" } }],
      orders: [{ id: "o1", status: "paid", total_amount: 2174, currency: "usd", created_at: "2026-09-14T10:21:30Z", invoice_number: "ACME-0042", product: { name: "Team Pro" } }],
      benefitGrants: [
        { id: "g1", is_granted: true, is_revoked: false, granted_at: "2026-08-14T10:21:38Z", benefit: { type: "github_repository", description: "Templates" } },
        { id: "g2", is_granted: false, is_revoked: true, benefit: { type: "discord" } },
      ],
    });
    renderFresh(<OrganizationPurchases userId="u1" organizationId="org1" />);
    const subscription = await screen.findByTestId("organization-subscription-row");
    expect(subscription).toHaveTextContent("Team Pro");
    expect(subscription).toHaveTextContent(/\$20\.00 a month/);
    expect(screen.getByTestId("organization-order-row")).toHaveTextContent(/\$21\.74 · .* · ACME-0042/);
    const [granted, revoked] = screen.getAllByTestId("organization-benefit-row");
    expect(granted).toHaveTextContent("Templates (granted)");
    expect(revoked).toHaveTextContent("discord (revoked)");
  });

  it("says what went wrong and offers to try again", async () => {
    answer(403, { code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING", message: "You are not allowed" });
    renderFresh(<OrganizationPurchases userId="u1" organizationId="org1" />);
    expect(await screen.findByRole("alert")).toHaveTextContent("We could not load the organization's billing.");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });
});
