import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));

const { LinkedAccounts } = await import("@/components/account/LinkedAccounts");

const account = (id: string, providerId: string) => ({
  id,
  providerId,
  accountId: `${providerId}-subject`,
  userId: "u1",
  createdAt: new Date(),
  updatedAt: new Date(),
  scopes: [],
});

describe("LinkedAccounts", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/account/");
    client.$fetch.mockReturnValue(ok({ providers: [{ id: "test-oidc", name: "Test ID" }] }));
  });

  it("offers to link a configured provider, and never to remove the only way in", async () => {
    client.listAccounts.mockReturnValue(ok([account("a1", "credential")]));
    client.linkSocial.mockReturnValue(ok({ url: "https://id.example/auth", redirect: true }));
    renderFresh(<LinkedAccounts userId="u1" readOnly={false} />);
    const rows = await screen.findAllByTestId("account-row");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toHaveTextContent("Password");
    expect(screen.queryByRole("button", { name: /Unlink/ })).toBeNull();
    await userEvent.click(await screen.findByRole("button", { name: "Link Test ID" }));
    expect(client.linkSocial).toHaveBeenCalledWith({
      provider: "test-oidc",
      callbackURL: "/account/?section=security",
      errorCallbackURL: "/account/?section=security",
    });
  });

  it("unlinks a provider by the account's id and shows the list again", async () => {
    client.listAccounts
      .mockReturnValueOnce(ok([account("a1", "credential"), account("a2", "test-oidc")]))
      .mockReturnValue(ok([account("a1", "credential")]));
    client.unlinkAccount.mockReturnValue(ok({ status: true }));
    renderFresh(<LinkedAccounts userId="u1" readOnly={false} />);
    const unlink = await screen.findByRole("button", { name: "Unlink Test ID" });
    expect(screen.queryByRole("button", { name: "Link Test ID" })).toBeNull();
    await userEvent.click(unlink);
    expect(client.unlinkAccount).toHaveBeenCalledWith({ accountId: "a2" });
    expect(await screen.findByRole("button", { name: "Link Test ID" })).toBeEnabled();
    expect(screen.getAllByTestId("account-row")).toHaveLength(1);
  });

  it("keeps a provider-only user's one account, and says why a link came back refused", async () => {
    window.history.replaceState(null, "", "/account/?error=email_does_not_match&error_description=Another+address.");
    client.listAccounts.mockReturnValue(ok([account("a2", "test-oidc")]));
    renderFresh(<LinkedAccounts userId="u1" readOnly={false} />);
    const row = (await screen.findAllByTestId("account-row"))[0]!;
    expect(within(row).queryByRole("button")).toBeNull();
    expect(screen.getByRole("alert")).toHaveTextContent("Another address.");
  });
});
