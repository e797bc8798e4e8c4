import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderFresh } from "./render";

const { EndpointsSection } = await import("@/components/billing/EndpointsSection");
const { changesOf } = await import("@/components/billing/EditEndpointDialog");

const endpoint = {
  id: "ep_1",
  organizationId: "org-1",
  url: "https://hooks.example.com/in",
  description: "Orders",
  eventTypes: ["order.paid", "subscription.active"],
  enabled: true,
  polarSigning: true,
  createdAt: "2026-09-01T10:00:00Z",
  updatedAt: "2026-09-01T10:00:00Z",
};

/** The billing API: the endpoint list, and `patch`'s answers to each PATCH in turn. */
function api(...patch: [number, unknown][]) {
  const fetch = vi.fn(async (input: string, init: RequestInit = {}) => {
    if (init.method === "PATCH") {
      const [status, body] = patch.shift() ?? [500, {}];
      return new Response(JSON.stringify(body), { status });
    }
    return new Response(JSON.stringify([endpoint]), { status: 200 });
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

const patches = (fetch: ReturnType<typeof api>) => fetch.mock.calls.filter(([, init]) => init?.method === "PATCH") as [string, RequestInit][];

async function openEdit() {
  const user = userEvent.setup();
  renderFresh(<EndpointsSection userId="u1" organizationId="org-1" />);
  const row = await screen.findByTestId("endpoint-row");
  await user.click(within(row).getByRole("button", { name: `Edit ${endpoint.url}` }));
  const dialog = screen.getByRole("dialog", { name: "Edit endpoint" });
  return { user, row, dialog, field: (label: string | RegExp) => within(dialog).getByLabelText(label) };
}

describe("editing an endpoint", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("opens prefilled with the endpoint's values, on its URL", async () => {
    api();
    const { field } = await openEdit();
    expect(field("Endpoint URL")).toHaveValue(endpoint.url);
    expect(field("Description (optional)")).toHaveValue("Orders");
    expect(field("Event types (optional)")).toHaveValue("order.paid, subscription.active");
    expect(field(/As the payments platform signs/)).toBeChecked();
    expect(field(/Standard Webhooks/)).not.toBeChecked();
    await waitFor(() => expect(field("Endpoint URL")).toHaveFocus());
  });

  it("sends only what changed, then closes and says so", async () => {
    const fetch = api([200, { ...endpoint, description: "Orders and refunds", polarSigning: false }]);
    const { user, row, dialog, field } = await openEdit();
    await user.clear(field("Description (optional)"));
    await user.type(field("Description (optional)"), " Orders and refunds ");
    await user.click(field(/Standard Webhooks/));
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    const [[path, init]] = patches(fetch) as [[string, RequestInit]];
    expect(path).toBe("/api/billing/endpoints/ep_1");
    expect(JSON.parse(init.body as string)).toEqual({ description: "Orders and refunds", polarSigning: false, organizationId: "org-1" });
    expect(await within(row).findByRole("status")).toHaveTextContent("Endpoint saved.");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("checks the fields before asking the server", async () => {
    const fetch = api();
    const { user, dialog, field } = await openEdit();
    await user.clear(field("Endpoint URL"));
    await user.type(field("Endpoint URL"), "ftp://example.com");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    expect(field("Endpoint URL")).toHaveAccessibleDescription("Enter an absolute http or https address.");
    expect(patches(fetch)).toEqual([]);
  });

  it("puts the server's refusals next to their fields", async () => {
    api(
      [400, { code: "ENDPOINT_URL_NOT_ALLOWED", message: "Endpoint URL points to a private address" }],
      [400, { code: "INVALID_EVENT_TYPE", message: "Unknown event type" }],
    );
    const { user, dialog, field } = await openEdit();
    await user.clear(field("Endpoint URL"));
    await user.type(field("Endpoint URL"), "http://10.0.0.7/hook");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    expect(await within(dialog).findByText(/^This address is private, loopback or link-local/)).toBeInTheDocument();
    expect(field("Endpoint URL")).toHaveAttribute("aria-invalid", "true");
    expect(field("Endpoint URL")).toHaveAccessibleDescription(/^This address is private/);

    await user.clear(field("Endpoint URL"));
    await user.type(field("Endpoint URL"), "https://hooks.example.com/other");
    await user.type(field("Event types (optional)"), " order.nope");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(field("Event types (optional)")).toHaveAttribute("aria-invalid", "true"));
    expect(field("Event types (optional)")).toHaveAccessibleDescription(/^Event types are lower-case words joined by dots/);
    // Still open, with what was typed.
    expect(screen.getByRole("dialog", { name: "Edit endpoint" })).toBeInTheDocument();
    expect(field("Endpoint URL")).toHaveValue("https://hooks.example.com/other");
  });

  it("names nothing when nothing changed", () => {
    const values = { url: `${endpoint.url} `, description: "Orders", eventTypes: "subscription.active order.paid", signing: "polar" };
    // Reordered types are sent again (the list is stored as given); the same list is no change.
    expect(changesOf(endpoint, values)).toEqual({ eventTypes: ["subscription.active", "order.paid"] });
    expect(changesOf(endpoint, { ...values, eventTypes: "order.paid,subscription.active" })).toEqual({});
  });
});
