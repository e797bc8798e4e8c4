import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { acme, sessionOf } from "./organization-fixtures";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));
vi.mock("next/navigation", () => ({ useRouter: () => ({ push: vi.fn(), replace: vi.fn() }), usePathname: () => "/organization/" }));

const { OrganizationPage } = await import("@/components/organization/OrganizationPage");

/** Acme's page as its owner, Olga. */
async function openAsOwner() {
  client.organization.getFullOrganization.mockReturnValue(ok(acme));
  client.organization.getActiveMemberRole.mockReturnValue(ok({ role: "owner" }));
  renderFresh(<OrganizationPage session={sessionOf("u-olga")} />);
  await screen.findByRole("heading", { name: "Acme", level: 1 });
  return userEvent.setup();
}

const region = (name: string) => within(screen.getByRole("region", { name }));

describe("making an owner asks first", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/organization/");
  });

  it("says what an owner may do; cancelling changes nothing, confirming makes them owner", async () => {
    client.organization.updateMemberRole.mockReturnValue(ok({ id: "m-ada", role: "owner" }));
    const user = await openAsOwner();
    const adaRole = region("Members").getByRole("combobox", { name: "Role of Ada Admin" });

    await user.selectOptions(adaRole, "owner");
    let dialog = screen.getByRole("dialog", { name: "Make Ada Admin an owner?" });
    expect(dialog).toHaveTextContent("Ada Admin gets every right in Acme");
    expect(dialog).toHaveTextContent("deleting the organization");
    expect(adaRole).toHaveValue("admin");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog", { name: "Make Ada Admin an owner?" })).not.toBeInTheDocument();
    expect(client.organization.updateMemberRole).not.toHaveBeenCalled();
    expect(adaRole).toHaveValue("admin");

    await user.selectOptions(adaRole, "owner");
    dialog = screen.getByRole("dialog", { name: "Make Ada Admin an owner?" });
    await user.click(within(dialog).getByRole("button", { name: "Make owner" }));
    expect(client.organization.updateMemberRole).toHaveBeenCalledWith({ memberId: "m-ada", role: "owner", organizationId: "org-1" });
    expect(await region("Members").findByRole("status")).toHaveTextContent("Ada Admin is now owner.");
    expect(screen.queryByRole("dialog", { name: "Make Ada Admin an owner?" })).not.toBeInTheDocument();
  });

  it("shows a refusal in the confirmation", async () => {
    client.organization.updateMemberRole.mockReturnValue(refused(403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", "no"));
    const user = await openAsOwner();
    await user.selectOptions(region("Members").getByRole("combobox", { name: "Role of Max Member" }), "owner");
    const dialog = screen.getByRole("dialog", { name: "Make Max Member an owner?" });
    await user.click(within(dialog).getByRole("button", { name: "Make owner" }));
    expect(await within(dialog).findByRole("alert")).toBeInTheDocument();
    expect(region("Members").getByRole("combobox", { name: "Role of Max Member" })).toHaveValue("member");
  });

  it("changes other roles at once", async () => {
    client.organization.updateMemberRole.mockReturnValue(ok({ id: "m-max", role: "admin" }));
    const user = await openAsOwner();
    await user.selectOptions(region("Members").getByRole("combobox", { name: "Role of Max Member" }), "admin");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(client.organization.updateMemberRole).toHaveBeenCalledWith({ memberId: "m-max", role: "admin", organizationId: "org-1" });
  });
});

describe("cancelling an invitation asks first", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/organization/");
  });

  it("says the mailed link stops working; keeping it changes nothing", async () => {
    client.organization.cancelInvitation.mockReturnValue(ok({ id: "inv-1", status: "canceled" }));
    const user = await openAsOwner();
    const pending = region("Pending invitations");

    await user.click(pending.getByRole("button", { name: "Cancel the invitation to new@example.com" }));
    let dialog = screen.getByRole("dialog", { name: "Cancel the invitation to new@example.com?" });
    expect(dialog).toHaveTextContent("The link mailed to new@example.com stops working at once.");
    await user.click(within(dialog).getByRole("button", { name: "Keep invitation" }));
    expect(client.organization.cancelInvitation).not.toHaveBeenCalled();

    await user.click(pending.getByRole("button", { name: "Cancel the invitation to new@example.com" }));
    dialog = screen.getByRole("dialog", { name: "Cancel the invitation to new@example.com?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel invitation" }));
    expect(client.organization.cancelInvitation).toHaveBeenCalledWith({ invitationId: "inv-1" });
    expect(await pending.findByRole("status")).toHaveTextContent("The invitation to new@example.com was cancelled.");
    expect(screen.queryByRole("dialog", { name: "Cancel the invitation to new@example.com?" })).not.toBeInTheDocument();
  });
});

describe("removing a team asks first", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/organization/");
  });

  it("says its members stay in the organization; keeping it leaves the team's dialog open", async () => {
    client.organization.listTeamMembers.mockReturnValue(ok([]));
    client.organization.removeTeam.mockReturnValue(ok({ message: "Team removed successfully." }));
    const user = await openAsOwner();
    await user.click(within(screen.getByRole("navigation", { name: "Organization sections" })).getByRole("link", { name: "Teams" }));
    await user.click(await screen.findByRole("button", { name: "Manage team Core" }));
    const team = screen.getByRole("dialog", { name: "Team Core" });

    await user.click(within(team).getByRole("button", { name: "Remove team…" }));
    let confirm = screen.getByRole("dialog", { name: "Remove team Core?" });
    expect(confirm).toHaveTextContent("Its members stay in Acme but leave the team");
    expect(confirm).not.toHaveTextContent("your active team");
    await user.click(within(confirm).getByRole("button", { name: "Keep it" }));
    expect(client.organization.removeTeam).not.toHaveBeenCalled();
    // Closing the confirmation does not close the team's dialog under it.
    expect(screen.getByRole("dialog", { name: "Team Core" })).toBeInTheDocument();

    await user.click(within(team).getByRole("button", { name: "Remove team…" }));
    confirm = screen.getByRole("dialog", { name: "Remove team Core?" });
    await user.click(within(confirm).getByRole("button", { name: "Yes, remove Core" }));
    expect(client.organization.removeTeam).toHaveBeenCalledWith({ teamId: "team-1", organizationId: "org-1" });
    expect(client.organization.setActiveTeam).not.toHaveBeenCalled();
    expect(await region("Teams").findByRole("status")).toHaveTextContent("Team Core removed.");
    expect(screen.queryByRole("dialog", { name: "Team Core" })).not.toBeInTheDocument();
  });
});
