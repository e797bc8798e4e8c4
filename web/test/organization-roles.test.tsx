import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok } from "./auth-client-mock";
import { acme, sessionOf } from "./organization-fixtures";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));
vi.mock("next/navigation", () => ({ useRouter: () => ({ push: vi.fn(), replace: vi.fn() }), usePathname: () => "/organization/" }));

const { OrganizationPage } = await import("@/components/organization/OrganizationPage");

/** The organization page as `userId` sees it, their role answered by the server. */
async function openAs(userId: string, role: string) {
  client.organization.getFullOrganization.mockReturnValue(ok(acme));
  client.organization.getActiveMemberRole.mockReturnValue(ok({ role }));
  renderFresh(<OrganizationPage session={sessionOf(userId)} />);
  await screen.findByRole("heading", { name: "Acme", level: 1 });
}

const members = () => within(screen.getByRole("region", { name: "Members" }));

/** Opens a section from the page's own navigation (its `#fragment`). */
async function openSection(name: string) {
  const link = within(screen.getByRole("navigation", { name: "Organization sections" })).getByRole("link", { name });
  await userEvent.click(link);
  await vi.waitFor(() => expect(link).toHaveAttribute("aria-current", "page"));
}

const sectionLinks = () => within(screen.getByRole("navigation", { name: "Organization sections" })).getAllByRole("link").map((link) => link.textContent);

describe("OrganizationPage offers only what the role may do", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.history.replaceState(null, "", "/organization/");
  });

  it("a member sees the members and teams, and can only leave", async () => {
    await openAs("u-max", "member");
    expect(client.organization.getActiveMemberRole).toHaveBeenCalledWith({ query: { organizationId: "org-1" } });
    expect(screen.getByTestId("my-role")).toHaveTextContent("Member");
    expect(members().getAllByTestId("member-row")).toHaveLength(3);
    expect(members().getByText("olga@example.com")).toBeInTheDocument();
    // No role changes, no removals, no invitations, no team or organization management.
    expect(screen.queryAllByRole("combobox")).toEqual([]);
    expect(screen.queryByRole("button", { name: /^Remove/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("form", { name: "Invite a member" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Send invitation" })).not.toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Pending invitations" })).not.toBeInTheDocument();
    expect(screen.queryByText("new@example.com")).not.toBeInTheDocument();
    expect(sectionLinks()).toEqual(["Members", "Teams"]);
    expect(screen.getByRole("button", { name: "Leave organization…" })).toBeInTheDocument();
    await openSection("Teams");
    expect(screen.queryByRole("region", { name: "Members" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Create team" })).not.toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Settings" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete organization…" })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "View team Core" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Manage team Core" })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Leave organization…" })).toBeInTheDocument();
  });

  it("a member's team dialog shows no team management either", async () => {
    client.organization.listTeamMembers.mockReturnValue(ok([{ id: "tm-1", teamId: "team-1", userId: "u-max", createdAt: new Date() }]));
    await openAs("u-max", "member");
    await openSection("Teams");
    await userEvent.click(screen.getByRole("button", { name: "View team Core" }));
    const dialog = within(screen.getByRole("dialog", { name: "Team Core" }));
    expect(await dialog.findByTestId("team-member-row")).toHaveTextContent("Max Member");
    expect(dialog.queryByRole("button", { name: /^Remove/ })).not.toBeInTheDocument();
    expect(dialog.queryByLabelText("Add a member")).not.toBeInTheDocument();
    expect(dialog.queryByRole("button", { name: "Rename team" })).not.toBeInTheDocument();
    expect(dialog.queryByRole("button", { name: "Remove team…" })).not.toBeInTheDocument();
  });

  it("an admin manages members but cannot touch the owner or delete the organization", async () => {
    await openAs("u-ada", "admin");
    expect(members().queryByRole("combobox", { name: "Role of Olga Owner" })).not.toBeInTheDocument();
    expect(members().queryByRole("button", { name: "Remove olga@example.com" })).not.toBeInTheDocument();
    expect(members().queryByRole("combobox", { name: "Role of Ada Admin" })).not.toBeInTheDocument();
    const maxRole = members().getByRole("combobox", { name: "Role of Max Member" });
    expect(within(maxRole).getAllByRole("option").map((o) => o.textContent)).toEqual(["Member", "Admin"]);
    expect(members().getByRole("button", { name: "Remove max@example.com" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send invitation" })).toBeInTheDocument();
    expect(screen.getByText("new@example.com")).toBeInTheDocument();
    expect(sectionLinks()).toEqual(["Members", "Teams", "API keys", "Settings", "Billing"]);
    await openSection("Teams");
    expect(screen.getByRole("button", { name: "Create team" })).toBeInTheDocument();
    await openSection("Settings");
    expect(screen.getByRole("heading", { name: "Settings" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete organization…" })).not.toBeInTheDocument();
  });

  it("an owner may do everything, making owners too", async () => {
    client.organization.updateMemberRole.mockReturnValue(ok({ id: "m-ada", role: "owner" }));
    await openAs("u-olga", "owner");
    await openSection("Settings");
    expect(screen.getByRole("button", { name: "Delete organization…" })).toBeInTheDocument();
    await openSection("Members");
    const adaRole = members().getByRole("combobox", { name: "Role of Ada Admin" });
    expect(within(adaRole).getAllByRole("option").map((o) => o.textContent)).toEqual(["Member", "Admin", "Owner"]);
    await userEvent.selectOptions(adaRole, "owner");
    // Ownership is asked for first (safeguards-organization.test.tsx checks what is said).
    expect(client.organization.updateMemberRole).not.toHaveBeenCalled();
    await userEvent.click(within(screen.getByRole("dialog", { name: "Make Ada Admin an owner?" })).getByRole("button", { name: "Make owner" }));
    expect(client.organization.updateMemberRole).toHaveBeenCalledWith({ memberId: "m-ada", role: "owner", organizationId: "org-1" });
    expect(await screen.findByRole("status")).toHaveTextContent("Ada Admin is now owner.");
  });
});
