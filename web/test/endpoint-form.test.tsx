import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { renderFresh } from "./render";

const { EndpointForm, eventTypesOf } = await import("@/components/billing/EndpointForm");

/** `fetch` answering the billing API once with `status` and `body`. */
function answer(status: number, body: unknown) {
  const fetch = vi.fn().mockResolvedValue(new Response(JSON.stringify(body), { status }));
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

const url = () => screen.getByLabelText("Endpoint URL");
const types = () => screen.getByLabelText("Event types (optional)");
const add = () => userEvent.click(screen.getByRole("button", { name: "Add endpoint" }));

describe("EndpointForm", () => {
  beforeEach(() => vi.unstubAllGlobals());
  afterEach(() => vi.unstubAllGlobals());

  it("checks the address and the types before asking the server", async () => {
    const fetch = answer(200, {});
    renderFresh(<EndpointForm organizationId="org-1" />);
    await add();
    expect(url()).toHaveAccessibleDescription("Enter the address that receives the events.");
    await userEvent.type(url(), "ftp://example.com");
    await userEvent.type(types(), "Order Paid");
    await add();
    expect(url()).toHaveAccessibleDescription("Enter an absolute http or https address.");
    expect(types()).toHaveAttribute("aria-invalid", "true");
    expect(fetch).not.toHaveBeenCalled();
  });

  it("puts the server's refusal of a private address on the URL field", async () => {
    answer(400, { code: "ENDPOINT_URL_NOT_ALLOWED", message: "Endpoint URL points to a private, loopback or link-local address" });
    renderFresh(<EndpointForm organizationId="org-1" />);
    await userEvent.type(url(), "http://10.0.0.7/hook");
    await add();
    expect(url()).toHaveAccessibleDescription(/^This address is private, loopback or link-local/);
    expect(url()).toHaveAttribute("aria-invalid", "true");
  });

  it("registers with the types and the signature chosen, then clears the form", async () => {
    const fetch = answer(200, { id: "ep_1", url: "https://hooks.example.com/in" });
    renderFresh(<EndpointForm organizationId="org-1" />);
    await userEvent.type(url(), " https://hooks.example.com/in ");
    await userEvent.type(types(), "order.paid, subscription.active order.paid");
    await userEvent.click(screen.getByLabelText(/As the payments platform signs/));
    await add();
    expect(fetch).toHaveBeenCalledTimes(1);
    const [path, init] = fetch.mock.calls[0] as [string, RequestInit];
    expect(path).toBe("/api/billing/endpoints");
    expect(JSON.parse(init.body as string)).toEqual({
      url: "https://hooks.example.com/in",
      description: "",
      eventTypes: ["order.paid", "subscription.active"],
      polarSigning: true,
      organizationId: "org-1",
    });
    expect(await screen.findByText(/Endpoint added: https:\/\/hooks\.example\.com\/in/)).toBeInTheDocument();
    expect(url()).toHaveValue("");
  });

  it("reads event types separated by commas or spaces", () => {
    expect(eventTypesOf(" order.paid,subscription.active  order.paid ")).toEqual(["order.paid", "subscription.active"]);
    expect(eventTypesOf("")).toEqual([]);
  });
});
