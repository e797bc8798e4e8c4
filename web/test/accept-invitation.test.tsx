import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { sessionOf } from "./organization-fixtures";
import { renderFresh } from "./render";

const router = { push: vi.fn(), replace: vi.fn() };
vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));
vi.mock("next/navigation", () => ({ useRouter: () => router, usePathname: () => "/accept-invitation/" }));

const { AcceptInvitation, invitationIdFrom, invitationTokenFrom } = await import("@/components/organization/AcceptInvitation");

describe("invitationIdFrom", () => {
  it.each([
    [{ pathname: "/accept-invitation/abc123", search: "" }, "abc123"],
    [{ pathname: "/accept-invitation/abc123/", search: "" }, "abc123"],
    [{ pathname: "/accept-invitation/", search: "?id=xyz" }, "xyz"],
    [{ pathname: "/accept-invitation/", search: "" }, null],
    [{ pathname: "/accept-invitation", search: "?id=" }, null],
  ])("%o → %s", (location, id) => expect(invitationIdFrom(location)).toBe(id));
});

describe("invitationTokenFrom", () => {
  it.each([
    [{ search: "?token=tok-1" }, "tok-1"],
    [{ search: "?id=xyz&token=tok-2" }, "tok-2"],
    [{ search: "?token=" }, null],
    [{ search: "" }, null],
  ])("%o → %s", (location, token) => expect(invitationTokenFrom(location)).toBe(token));
});

describe("AcceptInvitation", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/accept-invitation/inv-1");
  });

  it("signed out: offers signing in or up, coming back to this invitation", async () => {
    client.getSession.mockReturnValue(ok(null));
    renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("heading", { name: "You are invited to an organization" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/sign-in/?callbackURL=%2Faccept-invitation%2Finv-1");
    expect(screen.getByRole("link", { name: "Create account" })).toHaveAttribute("href", "/sign-up/?callbackURL=%2Faccept-invitation%2Finv-1");
    expect(client.organization.getInvitation).not.toHaveBeenCalled();
  });

  it("signed in: shows the invitation, accepts it and opens the organization", async () => {
    client.getSession.mockReturnValue(ok(sessionOf("u-max")));
    client.organization.getInvitation.mockReturnValue(
      ok({ id: "inv-1", email: "max@example.com", role: "admin", status: "pending", expiresAt: new Date(Date.now() + 3_600_000), organizationName: "Acme", organizationSlug: "acme", inviterEmail: "olga@example.com" }),
    );
    client.organization.acceptInvitation.mockReturnValue(ok({ invitation: { id: "inv-1" }, member: { id: "m-1" } }));
    renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("heading", { name: "Join Acme" })).toBeInTheDocument();
    expect(client.organization.getInvitation).toHaveBeenCalledWith({ query: { id: "inv-1" } });
    expect(screen.getByText("olga@example.com")).toBeInTheDocument();
    expect(screen.getByText("Admin")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Accept invitation" }));
    expect(client.organization.acceptInvitation).toHaveBeenCalledWith({ invitationId: "inv-1" });
    expect(router.push).toHaveBeenCalledWith("/organization/");
  });

  it("the mailed link's token goes along to view and answer it, and through sign-in", async () => {
    window.history.replaceState(null, "", "/accept-invitation/inv-1?token=tok-1");
    client.getSession.mockReturnValue(ok(null));
    const { unmount } = renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("link", { name: "Sign in" })).toHaveAttribute(
      "href",
      "/sign-in/?callbackURL=%2Faccept-invitation%2Finv-1%3Ftoken%3Dtok-1",
    );
    unmount();

    client.getSession.mockReturnValue(ok(sessionOf("u-max")));
    client.organization.getInvitation.mockReturnValue(
      ok({ id: "inv-1", email: "max@example.com", role: "member", status: "pending", expiresAt: new Date(Date.now() + 3_600_000), organizationName: "Acme", organizationSlug: "acme", inviterEmail: "olga@example.com" }),
    );
    client.organization.acceptInvitation.mockReturnValue(ok({ invitation: { id: "inv-1" }, member: { id: "m-1" } }));
    renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("heading", { name: "Join Acme" })).toBeInTheDocument();
    expect(client.organization.getInvitation).toHaveBeenCalledWith({ query: { id: "inv-1", token: "tok-1" } });
    await userEvent.click(screen.getByRole("button", { name: "Accept invitation" }));
    expect(client.organization.acceptInvitation).toHaveBeenCalledWith({ invitationId: "inv-1", token: "tok-1" });
  });

  it("tells an unverified invitee without the link to open it from the mail", async () => {
    client.getSession.mockReturnValue(ok(sessionOf("u-max")));
    client.organization.getInvitation.mockReturnValue(
      refused(403, "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION", "Email verification required to view or list invitations for the session email"),
    );
    renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Open this invitation from the link in its mail");
  });

  it("says clearly when the invitation is someone else's, and offers another account", async () => {
    client.getSession.mockReturnValue(ok(sessionOf("u-max")));
    client.organization.getInvitation.mockReturnValue(refused(403, "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION", "You are not the recipient of the invitation"));
    renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("heading", { name: "This invitation cannot be used" })).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("sent to another email address, and you are signed in as max@example.com");
    expect(screen.getByRole("button", { name: "Sign in with another account" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Accept invitation" })).not.toBeInTheDocument();
  });

  it("explains an invitation that expired or was answered", async () => {
    client.getSession.mockReturnValue(ok(sessionOf("u-max")));
    client.organization.getInvitation.mockReturnValue(refused(400, "INVITATION_NOT_FOUND", "Invitation not found"));
    renderFresh(<AcceptInvitation />);
    expect(await screen.findByRole("alert")).toHaveTextContent("This invitation was not found: it expired, was cancelled, or was already answered.");
  });
});
