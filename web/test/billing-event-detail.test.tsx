import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderFresh } from "./render";

const { EventLog } = await import("@/components/billing/EventLog");

const endpoint = {
  id: "ep_1",
  organizationId: "org-1",
  url: "https://hooks.example.com/a-rather-long-path/that-goes-on-and-on",
  description: "",
  eventTypes: [],
  enabled: true,
  polarSigning: false,
  createdAt: "2026-09-01T10:00:00Z",
  updatedAt: "2026-09-01T10:00:00Z",
};
const delivery = {
  id: "msg_1",
  endpointId: "ep_1",
  status: "delivered",
  attempts: 2,
  createdAt: "2026-09-14T10:21:30Z",
};
const event = {
  id: "ev_1",
  webhookId: "wh_abc",
  type: "order.paid",
  receivedAt: "2026-09-14T10:21:30Z",
  origin: "polar",
  deliveries: [delivery],
};
const detail = {
  ...event,
  payload: { type: "order.paid", data: { id: "ord_1", total_amount: 2174 } },
  deliveries: [
    {
      ...delivery,
      attemptLog: [
        { id: "at_1", trigger: "scheduled", startedAt: "2026-09-14T10:21:31Z", durationMs: 5003, error: "timed out after 5 s", succeeded: false },
        {
          id: "at_2",
          trigger: "manual",
          startedAt: "2026-09-14T10:25:00Z",
          durationMs: 84,
          responseStatus: 200,
          responseBody: '{"received":true}',
          succeeded: true,
        },
      ],
    },
  ],
};

/** The billing API: endpoints, one page of the log, and the event itself (`answer`). */
function api(answer: [number, unknown] = [200, detail]) {
  const fetch = vi.fn(async (input: string) => {
    const path = input.split("?")[0];
    const [status, body] =
      path === "/api/billing/endpoints"
        ? [200, [endpoint]]
        : path === "/api/billing/events"
          ? [200, { events: [event], hasMore: false }]
          : path === "/api/billing/events/ev_1"
            ? answer
            : [404, { code: "NOT_FOUND" }];
    return new Response(JSON.stringify(body), { status });
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

async function openDetail() {
  const user = userEvent.setup();
  renderFresh(<EventLog userId="u1" organizationId="org-1" />);
  const row = await screen.findByTestId("event-row");
  const details = within(row).getByRole("button", { name: /^Details of order\.paid, received / });
  // By keyboard: the row's button, then Enter.
  details.focus();
  await user.keyboard("{Enter}");
  return { user, details, dialog: screen.getByRole("dialog", { name: "order.paid" }) };
}

describe("an event's detail", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("is read only when opened", async () => {
    const fetch = api();
    renderFresh(<EventLog userId="u1" organizationId="org-1" />);
    await screen.findByTestId("event-row");
    expect(fetch.mock.calls.some(([url]) => String(url).startsWith("/api/billing/events/ev_1"))).toBe(false);
  });

  it("shows the payload pretty-printed in a scrollable, focusable block", async () => {
    api();
    const { dialog } = await openDetail();
    const payload = await within(dialog).findByRole("region", { name: "Payload" });
    expect(payload.tagName).toBe("PRE");
    expect(payload).toHaveAttribute("tabindex", "0");
    expect(payload.textContent).toBe(JSON.stringify(detail.payload, null, 2));
    expect(dialog).toHaveTextContent("Webhook ID: wh_abc");
  });

  it("lists each attempt with its status, time and answer or error", async () => {
    api();
    const { dialog } = await openDetail();
    const delivery = await within(dialog).findByRole("region", { name: `Attempts at ${endpoint.url}` });
    const [failed, succeeded] = within(delivery).getAllByTestId("attempt") as [HTMLElement, HTMLElement];
    expect(failed).toHaveTextContent(/failed\s*no answer · .+ · 5003 ms · scheduled/);
    expect(failed).toHaveTextContent("Error: timed out after 5 s");
    expect(within(failed).getByText(/2026/, { selector: "time" })).toHaveAttribute("datetime", "2026-09-14T10:21:31Z");
    expect(succeeded).toHaveTextContent(/succeeded\s*HTTP 200 · .+ · 84 ms · manual/);
    expect(within(succeeded).getByRole("region", { name: "Response body" })).toHaveTextContent('{"received":true}');
  });

  it("shows a body that is not JSON as it came", async () => {
    api([200, { ...detail, payload: "not json <xml/>" }]);
    const { dialog } = await openDetail();
    expect(await within(dialog).findByRole("region", { name: "Payload" })).toHaveTextContent("not json <xml/>");
  });

  it("says when the event cannot be read, and offers to try again", async () => {
    api([404, { code: "EVENT_NOT_FOUND", message: "Event not found" }]);
    const { dialog } = await openDetail();
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("We could not load this event. This event is not in your organization's log.");
    expect(within(dialog).getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("closes back to the row's button", async () => {
    api();
    const { user, details, dialog } = await openDetail();
    await within(dialog).findByRole("region", { name: "Payload" });
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(details).toHaveFocus());
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});
