import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));

const { ApiKeysSection } = await import("@/components/api-key/ApiKeysSection");

const key = (id: string, name: string, extra: object = {}) => ({
  id,
  name,
  start: "gh_abc",
  enabled: true,
  createdAt: new Date("2026-11-01T10:00:00Z"),
  lastRequest: null,
  expiresAt: null,
  remaining: null,
  ...extra,
});
const page = (apiKeys: object[]) => ok({ apiKeys, total: apiKeys.length });
const SECRET = `gh_${"a".repeat(64)}`;

describe("ApiKeysSection", () => {
  beforeEach(() => vi.resetAllMocks());

  it("shows a new key once, selected for copying, with the warning", async () => {
    client.apiKey.list.mockReturnValueOnce(page([])).mockReturnValue(page([key("k1", "deploy")]));
    client.apiKey.create.mockReturnValue(ok({ id: "k1", name: "deploy", key: SECRET }));
    renderFresh(<ApiKeysSection owner={{ userId: "u1" }} />);
    expect(await screen.findByText("No API keys yet.")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Name"), "deploy");
    await userEvent.selectOptions(screen.getByLabelText("Expires"), "90");
    await userEvent.click(screen.getByRole("button", { name: "Create key" }));
    expect(client.apiKey.create).toHaveBeenCalledWith({ name: "deploy", expiresIn: 90 * 86_400 });
    const shown = await screen.findByTestId("new-api-key");
    expect(shown).toHaveTextContent("shown only this once");
    expect(within(shown).getByLabelText("New API key")).toHaveValue(SECRET);
    expect(await screen.findAllByTestId("api-key-row")).toHaveLength(1);
    await userEvent.click(within(shown).getByRole("button", { name: "Done" }));
    expect(screen.queryByTestId("new-api-key")).toBeNull();
    expect(screen.queryByDisplayValue(SECRET)).toBeNull();
  });

  it("says what is wrong next to the name, and sends nothing", async () => {
    client.apiKey.list.mockReturnValue(page([]));
    renderFresh(<ApiKeysSection owner={{ userId: "u1" }} />);
    await screen.findByText("No API keys yet.");
    await userEvent.click(screen.getByRole("button", { name: "Create key" }));
    expect(screen.getByLabelText("Name")).toHaveAccessibleDescription(/Enter a name for the key/);
    expect(client.apiKey.create).not.toHaveBeenCalled();
  });

  it("turns a key off and deletes one after asking", async () => {
    client.apiKey.list
      .mockReturnValueOnce(page([key("k1", "deploy"), key("k2", "ci", { lastRequest: new Date() })]))
      .mockReturnValueOnce(page([key("k1", "deploy", { enabled: false }), key("k2", "ci")]))
      .mockReturnValue(page([key("k1", "deploy", { enabled: false })]));
    client.apiKey.update.mockReturnValue(ok({}));
    client.apiKey.delete.mockReturnValue(ok({ success: true }));
    renderFresh(<ApiKeysSection owner={{ userId: "u1" }} />);
    await userEvent.click(await screen.findByRole("button", { name: "Turn off deploy" }));
    expect(client.apiKey.update).toHaveBeenCalledWith({ keyId: "k1", enabled: false });
    expect(await screen.findByRole("button", { name: "Turn on deploy" })).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Delete ci" }));
    const dialog = await screen.findByRole("dialog");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete key" }));
    expect(client.apiKey.delete).toHaveBeenCalledWith({ keyId: "k2" });
    expect(await screen.findAllByTestId("api-key-row")).toHaveLength(1);
  });

  it("tells a member whose role may not manage an organization's keys why", async () => {
    client.apiKey.list.mockReturnValue(
      refused(403, "INSUFFICIENT_API_KEY_PERMISSIONS", "You do not have permission to perform this action on organization API keys."),
    );
    renderFresh(<ApiKeysSection owner={{ userId: "u1", organizationId: "o1" }} title="Organization API keys" />);
    expect(await screen.findByRole("note")).toHaveTextContent("Your role cannot manage this organization's API keys.");
    expect(client.apiKey.list).toHaveBeenCalledWith({ query: { sortBy: "createdAt", sortDirection: "desc", organizationId: "o1" } });
    expect(screen.queryByRole("button", { name: "Create key" })).toBeNull();
  });
});
