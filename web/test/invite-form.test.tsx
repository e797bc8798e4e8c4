import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { acme } from "./organization-fixtures";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));

const { InviteForm } = await import("@/components/organization/InviteForm");
const { abilitiesOf } = await import("@/components/organization/roles");

const email = () => screen.getByLabelText("Email");

describe("InviteForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("checks the address before asking the server", async () => {
    renderFresh(<InviteForm org={acme} abilities={abilitiesOf("owner")} />);
    await userEvent.click(screen.getByRole("button", { name: "Send invitation" }));
    expect(email()).toHaveAccessibleDescription("Enter the email address to invite.");
    await userEvent.type(email(), "not-an-address");
    await userEvent.click(screen.getByRole("button", { name: "Send invitation" }));
    expect(email()).toHaveAccessibleDescription("Enter an email address like name@example.com.");
    expect(client.organization.inviteMember).not.toHaveBeenCalled();
  });

  it.each([
    ["USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION", "User is already invited to this organization", /^This address already has a pending invitation\./],
    ["USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", "User is already a member of this organization", /^This person is already a member\./],
    ["INVALID_EMAIL", "Invalid email", /^This email address is not valid\./],
  ])("puts %s on the email field", async (code, message, shown) => {
    client.organization.inviteMember.mockReturnValue(refused(400, code, message));
    renderFresh(<InviteForm org={acme} abilities={abilitiesOf("admin")} />);
    await userEvent.type(email(), "max@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Send invitation" }));
    expect(email()).toHaveAccessibleDescription(shown);
    expect(email()).toHaveAttribute("aria-invalid", "true");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("puts an owner invitation refused to an admin on the role field", async () => {
    client.organization.inviteMember.mockReturnValue(refused(403, "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE", "You are not allowed to invite a user with this role"));
    renderFresh(<InviteForm org={acme} abilities={abilitiesOf("owner")} />);
    await userEvent.type(email(), "boss@example.com");
    await userEvent.selectOptions(screen.getByLabelText("Role"), "owner");
    await userEvent.click(screen.getByRole("button", { name: "Send invitation" }));
    expect(screen.getByLabelText("Role")).toHaveAccessibleDescription("Only an owner can invite an owner.");
  });

  it("invites with a role and a team, then clears the address", async () => {
    client.organization.inviteMember.mockReturnValue(ok({ id: "inv-2" }));
    renderFresh(<InviteForm org={acme} abilities={abilitiesOf("admin")} />);
    // An admin cannot make owners: the choice is not offered.
    const roles = within(screen.getByLabelText("Role")).getAllByRole("option").map((o) => o.textContent);
    expect(roles).toEqual(["Member", "Admin"]);
    await userEvent.type(email(), " lin@example.com ");
    await userEvent.selectOptions(screen.getByLabelText("Role"), "admin");
    await userEvent.selectOptions(screen.getByLabelText("Team (optional)"), "Core");
    await userEvent.click(screen.getByRole("button", { name: "Send invitation" }));
    expect(client.organization.inviteMember).toHaveBeenCalledWith({ email: "lin@example.com", role: "admin", organizationId: "org-1", teamId: "team-1" });
    expect(screen.getByRole("status")).toHaveTextContent("Invitation sent to lin@example.com.");
    expect(email()).toHaveValue("");
  });
});
