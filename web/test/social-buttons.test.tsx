import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));

const { SocialButtons } = await import("@/components/auth/SocialButtons");

describe("SocialButtons", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/sign-in/");
  });

  it("shows a button per provider the server lists, and starts that provider's sign-in", async () => {
    client.$fetch.mockReturnValue(ok({ providers: [{ id: "corp", name: "Corp ID" }, { id: "test-oidc", name: "test-oidc" }] }));
    client.signIn.social.mockReturnValue(ok({ url: "https://id.example/auth", redirect: true }));
    renderFresh(<SocialButtons callback="/account" page="/sign-in/?callbackURL=%2Faccount" />);
    const corp = await screen.findByRole("button", { name: "Continue with Corp ID" });
    expect(screen.getByRole("button", { name: "Continue with test-oidc" })).toBeEnabled();
    expect(client.$fetch).toHaveBeenCalledWith("/social-providers", { method: "GET" });
    await userEvent.click(corp);
    expect(client.signIn.social).toHaveBeenCalledWith({
      provider: "corp",
      callbackURL: "/account",
      errorCallbackURL: "/sign-in/?callbackURL=%2Faccount",
    });
  });

  it("shows nothing when no provider is configured", async () => {
    client.$fetch.mockReturnValue(ok({ providers: [] }));
    const { container } = renderFresh(<SocialButtons callback="/" page="/sign-in/" />);
    await waitFor(() => expect(client.$fetch).toHaveBeenCalled());
    // Once the (empty) list has arrived, still nothing.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await waitFor(() => expect(container).toBeEmptyDOMElement());
  });

  it("says why a sign-in came back refused, and why a start failed", async () => {
    window.history.replaceState(null, "", "/sign-in/?error=account_not_linked&error_description=An+account+with+this+email+exists.");
    client.$fetch.mockReturnValue(ok({ providers: [{ id: "corp", name: "Corp ID" }] }));
    renderFresh(<SocialButtons callback="/" page="/sign-in/" />);
    expect(await screen.findByRole("alert")).toHaveTextContent("An account with this email exists.");

    client.signIn.social.mockReturnValue(refused(404, "PROVIDER_NOT_FOUND", "Provider not found"));
    await userEvent.click(screen.getByRole("button", { name: "Continue with Corp ID" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Provider not found");
    expect(screen.getByRole("button", { name: "Continue with Corp ID" })).toBeEnabled();
  });
});
