import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { SWRConfig } from "swr";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { sessionOf } from "./organization-fixtures";

const router = { push: vi.fn(), replace: vi.fn() };
// Calls the shared mock lacks, added here for these tests.
const extra = { listUserInvitations: vi.fn(), hasPermission: vi.fn() };
Object.assign(client.organization, { listUserInvitations: extra.listUserInvitations });
Object.assign(client.admin, { hasPermission: extra.hasPermission });
vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));
vi.mock("next/navigation", () => ({ useRouter: () => router, usePathname: () => "/" }));
vi.mock("@/components/mailbox/hooks", () => ({ useMailbox: () => ({ data: undefined }) }));

const { PendingInvitations } = await import("@/components/home/PendingInvitations");
const { HomeScreen } = await import("@/components/home/HomeScreen");

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
const invitation = (id: string, organizationName: string, extra: object = {}) => ({
  id,
  organizationId: `org-${id}`,
  organizationName,
  email: "max@example.com",
  role: "member",
  status: "pending",
  inviterId: "u-olga",
  expiresAt: inHours(24),
  createdAt: inHours(-1),
  teamId: null,
  ...extra,
});

// The app's global cache, which the refresh after an answer revalidates; each test its own user.
let users = 0;
function renderFor(ui: (userId: string) => React.ReactElement) {
  const userId = `u-home-${++users}`;
  render(<SWRConfig value={{ dedupingInterval: 0 }}>{ui(userId)}</SWRConfig>);
  return userId;
}

/** Lets the read's answer land (nothing on the page changes to wait for). */
const settled = () => act(() => new Promise((resolve) => setTimeout(resolve, 20)));

describe("PendingInvitations", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    extra.hasPermission.mockReturnValue(ok({ success: false }));
  });

  it("lists each invitation with its organization, role, inviter and expiry", async () => {
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-1", "Acme", { role: "admin" }), invitation("inv-2", "Globex", { expiresAt: inHours(2) })]));
    client.organization.getInvitation.mockImplementation(({ query }: { query: { id: string } }) =>
      query.id === "inv-1" ? ok({ ...invitation("inv-1", "Acme"), inviterEmail: "olga@example.com" }) : refused(500, "", "down"),
    );
    renderFor((userId) => <PendingInvitations userId={userId} />);
    const section = await screen.findByRole("region", { name: "Invitations" });
    const rows = await within(section).findAllByTestId("user-invitation-row");
    // Soonest to expire first.
    expect(rows.map((row) => within(row).getByRole("strong").textContent)).toEqual(["Globex", "Acme"]);
    expect(extra.listUserInvitations).toHaveBeenCalledWith();
    await vi.waitFor(() => expect(rows[1]).toHaveTextContent(/Role: Admin · invited by olga@example\.com · expires /));
    // Who sent it is left out when it could not be read.
    expect(rows[0]).toHaveTextContent(/^GlobexRole: Member · expires /);
    expect(within(rows[1]!).getByRole("button", { name: "Accept the invitation to Acme" })).toHaveTextContent("Accept");
    expect(within(rows[1]!).getByRole("button", { name: "Decline the invitation to Acme" })).toHaveTextContent("Decline");
  });

  it("accepts one, refreshes, and offers to open the organization", async () => {
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-1", "Acme")]));
    client.organization.getInvitation.mockReturnValue(ok({ ...invitation("inv-1", "Acme"), inviterEmail: "olga@example.com" }));
    client.organization.acceptInvitation.mockReturnValue(ok({ invitation: { id: "inv-1" }, member: { id: "m-1" } }));
    client.organization.setActive.mockReturnValue(ok({ id: "org-inv-1" }));
    renderFor((userId) => <PendingInvitations userId={userId} />);
    const accept = await screen.findByRole("button", { name: "Accept the invitation to Acme" });

    extra.listUserInvitations.mockReturnValue(ok([]));
    await userEvent.click(accept);
    expect(client.organization.acceptInvitation).toHaveBeenCalledWith({ invitationId: "inv-1" });
    expect(await screen.findByRole("status")).toHaveTextContent("You joined Acme.");
    expect(extra.listUserInvitations).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId("user-invitation-row")).not.toBeInTheDocument();
    const open = screen.getByRole("button", { name: "Open Acme" });
    expect(open).toHaveFocus();

    await userEvent.click(open);
    expect(client.organization.setActive).toHaveBeenCalledWith({ organizationId: "org-inv-1" });
    expect(router.push).toHaveBeenCalledWith("/organization/");
  });

  it("declines one and says so", async () => {
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-1", "Acme"), invitation("inv-2", "Globex")]));
    client.organization.getInvitation.mockReturnValue(refused(500, "", "down"));
    client.organization.rejectInvitation.mockReturnValue(ok({ invitation: { id: "inv-1" }, member: null }));
    renderFor((userId) => <PendingInvitations userId={userId} />);
    const decline = await screen.findByRole("button", { name: "Decline the invitation to Acme" });

    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-2", "Globex")]));
    await userEvent.click(decline);
    expect(client.organization.rejectInvitation).toHaveBeenCalledWith({ invitationId: "inv-1" });
    const status = await screen.findByRole("status");
    expect(status).toHaveTextContent("You declined the invitation to Acme.");
    expect(status).toHaveFocus();
    expect(screen.getAllByTestId("user-invitation-row")).toHaveLength(1);
    expect(screen.getByTestId("user-invitation-row")).toHaveTextContent("Globex");
    expect(client.organization.acceptInvitation).not.toHaveBeenCalled();
  });

  it("says why an answer was refused, and shows what is left", async () => {
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-1", "Acme")]));
    client.organization.getInvitation.mockReturnValue(refused(500, "", "down"));
    client.organization.acceptInvitation.mockReturnValue(refused(400, "INVITATION_NOT_FOUND", "Invitation not found"));
    renderFor((userId) => <PendingInvitations userId={userId} />);
    const accept = await screen.findByRole("button", { name: "Accept the invitation to Acme" });
    extra.listUserInvitations.mockReturnValue(ok([]));
    await userEvent.click(accept);
    expect(await screen.findByRole("alert")).toHaveTextContent("This invitation is no longer valid");
    await vi.waitFor(() => expect(screen.queryByTestId("user-invitation-row")).not.toBeInTheDocument());
    expect(screen.queryByRole("button", { name: /^Open/ })).not.toBeInTheDocument();
  });

  it("shows nothing when there are none, or when an unverified address may not list them", async () => {
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-old", "Oldco", { expiresAt: inHours(-1) })]));
    renderFor((userId) => <PendingInvitations userId={userId} />);
    await vi.waitFor(() => expect(extra.listUserInvitations).toHaveBeenCalled());
    await settled();
    expect(screen.queryByRole("region", { name: "Invitations" })).not.toBeInTheDocument();

    extra.listUserInvitations.mockReturnValue(
      refused(403, "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION", "Email verification required to view or list invitations for the session email"),
    );
    renderFor((userId) => <PendingInvitations userId={userId} />);
    await vi.waitFor(() => expect(extra.listUserInvitations).toHaveBeenCalledTimes(2));
    await settled();
    expect(screen.queryByRole("region", { name: "Invitations" })).not.toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("shows a failed read with a way to try again", async () => {
    extra.listUserInvitations.mockReturnValue(refused(500, "", "Internal Server Error"));
    renderFor((userId) => <PendingInvitations userId={userId} />);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("We could not load your invitations.");
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-1", "Acme")]));
    client.organization.getInvitation.mockReturnValue(refused(500, "", "down"));
    await userEvent.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(await screen.findByTestId("user-invitation-row")).toHaveTextContent("Acme");
  });

  it("is on the home page, under the welcome", async () => {
    client.getSession.mockReturnValue(ok(sessionOf("u-max")));
    extra.listUserInvitations.mockReturnValue(ok([invitation("inv-1", "Acme")]));
    client.organization.getInvitation.mockReturnValue(refused(500, "", "down"));
    renderFor(() => <HomeScreen />);
    expect(await screen.findByRole("heading", { name: "Welcome, Max Member", level: 1 })).toBeInTheDocument();
    const section = await screen.findByRole("region", { name: "Invitations" });
    expect(within(section).getByRole("button", { name: "Accept the invitation to Acme" })).toBeInTheDocument();
  });
});
