import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Announcer } from "@/components/Announcer";
import { renderFresh } from "./render";

const { EndpointsSection } = await import("@/components/billing/EndpointsSection");

const endpoint = {
  id: "ep_1",
  organizationId: "org-1",
  url: "https://hooks.example.com/in",
  description: "",
  eventTypes: [],
  enabled: true,
  polarSigning: false,
  createdAt: "2026-09-01T10:00:00Z",
  updatedAt: "2026-09-01T10:00:00Z",
};
const secret = {
  secret: "whsec_bmV3LXNlY3JldC1vZi1mb3J0eS10d28tY2hhcmFjdGVycw==",
  previousSecret: "whsec_b2xkLXNlY3JldA==",
  previousSecretExpiresAt: "2026-09-02T10:00:00Z",
};

/** The billing API: the endpoint list and its secret. */
function api() {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: string) => {
      const body = input.startsWith("/api/billing/endpoints/ep_1/secret") ? secret : [endpoint];
      return new Response(JSON.stringify(body), { status: 200 });
    }),
  );
}

async function reveal() {
  const user = userEvent.setup();
  api();
  renderFresh(
    <>
      <Announcer />
      <EndpointsSection userId="u1" organizationId="org-1" />
    </>,
  );
  const row = await screen.findByTestId("endpoint-row");
  await user.click(within(row).getByRole("button", { name: "Reveal secret" }));
  const panel = await within(row).findByTestId("endpoint-secret");
  return { user, panel };
}

describe("copying an endpoint's secrets", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("copies the secret, says Copied on the button and to screen readers", async () => {
    const { user, panel } = await reveal();
    await user.click(within(panel).getByRole("button", { name: "Copy secret" }));
    expect(await navigator.clipboard.readText()).toBe(secret.secret);
    expect(within(panel).getByRole("button", { name: "Copied" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("announcer-polite")).toHaveTextContent("Copied to the clipboard."));
  });

  it("copies the previous secret with its own button", async () => {
    const { user, panel } = await reveal();
    await user.click(within(panel).getByRole("button", { name: "Copy previous secret" }));
    expect(await navigator.clipboard.readText()).toBe(secret.previousSecret);
    // Only that button says so.
    expect(within(panel).getByRole("button", { name: "Copy secret" })).toBeInTheDocument();
  });

  it("says to copy by hand, with the secret selected, when the clipboard is refused", async () => {
    const { user, panel } = await reveal();
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(new DOMException("Write permission denied.", "NotAllowedError"));
    await user.click(within(panel).getByRole("button", { name: "Copy secret" }));
    expect(await within(panel).findByRole("alert")).toHaveTextContent("We could not copy it: select the text and copy it yourself.");
    expect(within(panel).getByRole("button", { name: "Copy secret" })).toBeInTheDocument();
    expect(window.getSelection()?.toString()).toBe(secret.secret);
  });
});
