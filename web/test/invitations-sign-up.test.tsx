import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok } from "./auth-client-mock";
import { renderFresh } from "./render";

const router = { push: vi.fn(), replace: vi.fn() };
vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));
vi.mock("next/navigation", () => ({ useRouter: () => router, usePathname: () => "/sign-up/" }));

const { SignUpForm } = await import("@/components/auth/SignUpForm");
const { AuthPage, invitedEmail } = await import("@/components/auth/AuthPage");
const { AcceptInvitation, invitedEmailFrom } = await import("@/components/organization/AcceptInvitation");

const email = () => screen.getByLabelText("Email");
const INVITED_HINT = /The invitation was sent to this address\./;

describe("sign-up from an invitation", () => {
  beforeEach(() => vi.resetAllMocks());

  it("fills in the invited address, read-only, and signs up with it", async () => {
    client.signUp.email.mockReturnValue(ok());
    render(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" invitedEmail="new@example.com" />);
    expect(email()).toHaveValue("new@example.com");
    expect(email()).toHaveAttribute("readonly");
    expect(email()).toHaveAccessibleDescription(INVITED_HINT);
    await userEvent.type(email(), "typed");
    expect(email()).toHaveValue("new@example.com");

    await userEvent.type(screen.getByLabelText("Name"), "Nina");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(client.signUp.email).toHaveBeenCalledWith(expect.objectContaining({ name: "Nina", email: "new@example.com" }));
  });

  it("lets the user use another address", async () => {
    render(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" invitedEmail="new@example.com" />);
    await userEvent.click(screen.getByRole("button", { name: "Use another address" }));
    expect(email()).not.toHaveAttribute("readonly");
    expect(email()).toHaveFocus();
    expect(email()).not.toHaveAccessibleDescription(INVITED_HINT);
    expect(screen.queryByRole("button", { name: "Use another address" })).not.toBeInTheDocument();
    await userEvent.clear(email());
    await userEvent.type(email(), "other@example.com");
    expect(email()).toHaveValue("other@example.com");
  });

  it("takes the address when it arrives after the form (the page reads it after mount)", () => {
    const { rerender } = render(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" />);
    expect(email()).toHaveValue("");
    expect(email()).not.toHaveAttribute("readonly");
    rerender(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" invitedEmail="new@example.com" />);
    expect(email()).toHaveValue("new@example.com");
    expect(email()).toHaveAttribute("readonly");
  });
});

describe("invitedEmail (the auth pages' `email` parameter)", () => {
  it.each([
    ["?callbackURL=%2Faccept-invitation%2Finv-1%3Ftoken%3Dt&email=new%40example.com", "new@example.com"],
    ["?email=new%40example.com&callbackURL=%2Faccept-invitation%2F%3Fid%3Dinv-1", "new@example.com"],
    // Not from an invitation: nothing to call the invited address.
    ["?email=new%40example.com", undefined],
    ["?callbackURL=%2Faccount%2F&email=new%40example.com", undefined],
    ["?callbackURL=https%3A%2F%2Fevil.example%2Faccept-invitation%2Fx&email=new%40example.com", undefined],
    ["?callbackURL=%2Faccept-invitation%2Finv-1&email=not-an-address", undefined],
    ["?callbackURL=%2Faccept-invitation%2Finv-1", undefined],
  ])("%s → %s", (search, expected) => expect(invitedEmail({ search })).toBe(expected));
});

describe("AuthPage with an invited address", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    client.getSession.mockReturnValue(ok(null));
  });

  it("sign-up: the address is filled in and locked; the sign-in link keeps it", async () => {
    window.history.replaceState(null, "", "/sign-up/?callbackURL=%2Faccept-invitation%2Finv-1&email=new%40example.com");
    renderFresh(<AuthPage mode="sign-up" />);
    expect(await screen.findByDisplayValue("new@example.com")).toHaveAttribute("readonly");
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute(
      "href",
      "/sign-in/?callbackURL=%2Faccept-invitation%2Finv-1&email=new%40example.com",
    );
  });

  it("sign-in: the link to sign-up keeps the address", async () => {
    window.history.replaceState(null, "", "/sign-in/?callbackURL=%2Faccept-invitation%2Finv-1&email=new%40example.com");
    renderFresh(<AuthPage mode="sign-in" />);
    await vi.waitFor(() =>
      expect(screen.getByRole("link", { name: "Create an account" })).toHaveAttribute(
        "href",
        "/sign-up/?callbackURL=%2Faccept-invitation%2Finv-1&email=new%40example.com",
      ),
    );
  });

  it("sign-up without an invitation: an empty, editable field", async () => {
    window.history.replaceState(null, "", "/sign-up/?email=new%40example.com");
    renderFresh(<AuthPage mode="sign-up" />);
    await vi.waitFor(() => expect(client.getSession).toHaveBeenCalled());
    expect(email()).toHaveValue("");
    expect(email()).not.toHaveAttribute("readonly");
  });
});

describe("the invitation page's links", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    client.getSession.mockReturnValue(ok(null));
  });

  it.each([
    [{ search: "?token=t&email=new%40example.com" }, "new@example.com"],
    [{ search: "?email=%20new%40example.com%20" }, "new@example.com"],
    [{ search: "?email=nope" }, null],
    [{ search: "?token=t" }, null],
  ])("invitedEmailFrom(%o) → %s", (location, expected) => expect(invitedEmailFrom(location)).toBe(expected));

  it("carry the invited address to sign-up and sign-in", async () => {
    window.history.replaceState(null, "", "/accept-invitation/inv-1?token=tok-1&email=new%40example.com");
    renderFresh(<AcceptInvitation />);
    const back = encodeURIComponent("/accept-invitation/inv-1?token=tok-1&email=new%40example.com");
    expect(await screen.findByRole("link", { name: "Create account" })).toHaveAttribute(
      "href",
      `/sign-up/?callbackURL=${back}&email=new%40example.com`,
    );
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", `/sign-in/?callbackURL=${back}&email=new%40example.com`);
  });
});
