import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { SWRConfig } from "swr";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
// The dialog lists the user's sessions too (the shared mock has no such method).
const admin = Object.assign(client.admin, { listUserSessions: vi.fn(), revokeUserSession: vi.fn() });
vi.mock("next/navigation", () => ({ useRouter: () => ({ push: vi.fn(), replace: vi.fn() }) }));

const { UsersAdmin } = await import("@/components/admin/UsersAdmin");

const ada = (twoFactorEnabled: boolean) => ({
  id: "u-ada",
  name: "Ada",
  email: "ada@example.com",
  emailVerified: true,
  role: "user",
  banned: false,
  twoFactorEnabled,
  createdAt: "2025-01-02T03:04:05.000Z",
  updatedAt: "2025-01-02T03:04:05.000Z",
});
const page = (twoFactorEnabled: boolean) => ok({ users: [ada(twoFactorEnabled)], total: 1, limit: 20, offset: 0 });

// The app's global cache, which `refreshUsers` revalidates; each test its own admin, so its own keys.
let admins = 0;
async function openManage() {
  const user = userEvent.setup();
  render(
    <SWRConfig value={{ dedupingInterval: 0 }}>
      <UsersAdmin userId={`admin-${++admins}`} />
    </SWRConfig>,
  );
  await user.click(await screen.findByRole("button", { name: "Manage ada@example.com" }));
  const dialog = screen.getByRole("dialog", { name: "Manage Ada" });
  return { user, dialog, section: within(dialog).getByRole("region", { name: "Two-step verification" }) };
}

describe("ManageUserDialog: two-step verification", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    admin.listUserSessions.mockReturnValue(ok({ sessions: [] }));
  });

  it("shows it off, with nothing to reset", async () => {
    client.admin.listUsers.mockReturnValue(page(false));
    const { section } = await openManage();
    expect(within(section).getByTestId("two-factor-status")).toHaveTextContent("Off");
    expect(within(section).queryByRole("button")).not.toBeInTheDocument();
  });

  it("resets it after a confirmation, then refreshes the users", async () => {
    client.admin.listUsers.mockReturnValue(page(true));
    client.$fetch.mockReturnValue(ok({ user: ada(false) }));
    const { user, dialog, section } = await openManage();
    expect(within(section).getByTestId("two-factor-status")).toHaveTextContent("On");

    await user.click(within(section).getByRole("button", { name: "Reset two-step verification" }));
    await user.click(within(section).getByRole("button", { name: "Keep" }));
    expect(client.$fetch).not.toHaveBeenCalled();
    await user.click(within(section).getByRole("button", { name: "Reset two-step verification" }));

    const reads = client.admin.listUsers.mock.calls.length;
    client.admin.listUsers.mockReturnValue(page(false));
    await user.click(within(section).getByRole("button", { name: "Yes, reset two-step verification" }));
    expect(client.$fetch).toHaveBeenCalledWith("/admin/reset-two-factor", { method: "POST", body: { userId: "u-ada" } });
    expect(await within(dialog).findByRole("status")).toHaveTextContent(
      "Two-step verification turned off; the user was signed out and emailed.",
    );
    expect(client.admin.listUsers.mock.calls.length).toBeGreaterThan(reads);
    expect(await within(section).findByText("Off")).toBeInTheDocument();
    expect(within(section).queryByRole("button")).not.toBeInTheDocument();
  });

  it("says why when refused", async () => {
    client.admin.listUsers.mockReturnValue(page(true));
    client.$fetch.mockReturnValue(refused(403, "YOU_CANNOT_RESET_ADMINS_TWO_FACTOR", "You cannot reset an admin's two factor"));
    const { user, dialog, section } = await openManage();
    await user.click(within(section).getByRole("button", { name: "Reset two-step verification" }));
    await user.click(within(section).getByRole("button", { name: "Yes, reset two-step verification" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent(
      "Only a super-admin can reset another admin's two-step verification.",
    );
    expect(within(section).getByTestId("two-factor-status")).toHaveTextContent("On");
  });
});
