import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { SWRConfig } from "swr";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { formatDate } from "@/lib/format";
import { client, ok, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/navigation", () => ({ useRouter: () => ({ push: vi.fn(), replace: vi.fn() }) }));
// The admin plugin's session methods, which the shared mock lacks.
const admin = Object.assign(client.admin, { listUserSessions: vi.fn(), revokeUserSession: vi.fn() });

const { UsersAdmin } = await import("@/components/admin/UsersAdmin");

const ada = (extra: Record<string, unknown> = {}) => ({
  id: "u-ada",
  name: "Ada",
  email: "ada@example.com",
  emailVerified: true,
  role: "user",
  banned: false,
  createdAt: "2025-01-02T03:04:05.000Z",
  updatedAt: "2025-01-02T03:04:05.000Z",
  ...extra,
});
const page = (extra: Record<string, unknown> = {}) => ok({ users: [ada(extra)], total: 1, limit: 20, offset: 0 });

const later = new Date(Date.now() + 7 * 86_400_000).toISOString();
const earlier = new Date(Date.now() - 86_400_000).toISOString();
const chrome = {
  id: "s-1",
  token: "tok-1",
  userId: "u-ada",
  ipAddress: "203.0.113.7",
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
  createdAt: "2025-03-01T10:00:00.000Z",
  updatedAt: "2025-03-01T10:00:00.000Z",
  expiresAt: later,
};
const oldFirefox = {
  ...chrome,
  id: "s-2",
  token: "tok-2",
  ipAddress: "",
  userAgent: "Mozilla/5.0 (Windows NT 10.0; rv:120.0) Gecko/20100101 Firefox/120.0",
  createdAt: "2025-02-01T10:00:00.000Z",
  expiresAt: earlier,
};

let admins = 0;
async function openManage() {
  const user = userEvent.setup();
  render(
    <SWRConfig value={{ dedupingInterval: 0 }}>
      <UsersAdmin userId={`safeguard-admin-${++admins}`} />
    </SWRConfig>,
  );
  await user.click(await screen.findByRole("button", { name: "Manage ada@example.com" }));
  const dialog = screen.getByRole("dialog", { name: "Manage Ada" });
  return { user, dialog };
}

describe("the admin's view of a user", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    admin.listUserSessions.mockReturnValue(ok({ sessions: [] }));
  });

  it("shows a verified, active user", async () => {
    client.admin.listUsers.mockReturnValue(page());
    const { dialog } = await openManage();
    expect(within(dialog).getByTestId("email-status")).toHaveTextContent("Verified");
    expect(within(dialog).getByTestId("account-status")).toHaveTextContent("Active");
  });

  it("shows an unverified, banned user with the ban's reason and end", async () => {
    const end = "2030-05-06T07:08:00.000Z";
    client.admin.listUsers.mockReturnValue(page({ emailVerified: false, banned: true, banReason: "spam", banExpires: end }));
    const { dialog } = await openManage();
    expect(within(dialog).getByTestId("email-status")).toHaveTextContent("Not verified");
    expect(within(dialog).getByTestId("account-status")).toHaveTextContent(`Banned: spam (until ${formatDate(end)}).`);
    expect(within(dialog).getByRole("button", { name: "Unban" })).toBeInTheDocument();
    expect(within(dialog).queryByRole("button", { name: "Ban user" })).not.toBeInTheDocument();
  });

  it("lists the user's sessions: device, address, signed in, ends; expired ones marked", async () => {
    client.admin.listUsers.mockReturnValue(page());
    admin.listUserSessions.mockReturnValue(ok({ sessions: [oldFirefox, chrome] }));
    const { dialog } = await openManage();
    const rows = await within(dialog).findAllByTestId("user-session-row");
    expect(admin.listUserSessions).toHaveBeenCalledWith({ userId: "u-ada" });
    // Running ones first.
    expect(rows[0]).toHaveTextContent("Chrome on Linux");
    expect(rows[0]).toHaveTextContent(`203.0.113.7 · signed in ${formatDate(chrome.createdAt)} · expires ${formatDate(later)}`);
    expect(rows[1]).toHaveTextContent("Firefox on Windows");
    expect(rows[1]).toHaveTextContent("Expired");
    expect(rows[1]).toHaveTextContent(`Unknown address · signed in ${formatDate(oldFirefox.createdAt)} · expired ${formatDate(earlier)}`);
    expect(within(rows[1] as HTMLElement).queryByRole("button")).not.toBeInTheDocument();
  });

  it("says when the sessions cannot be read", async () => {
    client.admin.listUsers.mockReturnValue(page());
    admin.listUserSessions.mockReturnValue(refused(403, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS", "no"));
    const { dialog } = await openManage();
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("We could not load their sessions.");
  });

  it("revokes one session, or all of them, and reads the list again", async () => {
    client.admin.listUsers.mockReturnValue(page());
    admin.listUserSessions.mockReturnValue(ok({ sessions: [chrome] }));
    admin.revokeUserSession.mockReturnValue(ok({ success: true }));
    client.admin.revokeUserSessions.mockReturnValue(ok({ success: true }));
    const { user, dialog } = await openManage();
    await within(dialog).findByTestId("user-session-row");

    let reads = admin.listUserSessions.mock.calls.length;
    admin.listUserSessions.mockReturnValue(ok({ sessions: [] }));
    await user.click(within(dialog).getByRole("button", { name: `Revoke the Chrome on Linux session from ${formatDate(chrome.createdAt)}` }));
    expect(admin.revokeUserSession).toHaveBeenCalledWith({ sessionToken: "tok-1" });
    expect(await within(dialog).findByRole("status")).toHaveTextContent("The Chrome on Linux session was revoked.");
    expect(await within(dialog).findByText("No sessions: they are not signed in anywhere.")).toBeInTheDocument();
    expect(admin.listUserSessions.mock.calls.length).toBeGreaterThan(reads);

    reads = admin.listUserSessions.mock.calls.length;
    await user.click(within(dialog).getByRole("button", { name: "Revoke all sessions" }));
    expect(client.admin.revokeUserSessions).toHaveBeenCalledWith({ userId: "u-ada" });
    expect(await within(dialog).findByRole("status")).toHaveTextContent("All of this user's sessions were revoked.");
    expect(admin.listUserSessions.mock.calls.length).toBeGreaterThan(reads);
  });
});

describe("banning asks first, saying for how long and why", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    admin.listUserSessions.mockReturnValue(ok({ sessions: [] }));
  });

  it("repeats the length and the reason; cancelling leaves the manage dialog open and bans nobody", async () => {
    client.admin.listUsers.mockReturnValue(page());
    client.admin.banUser.mockReturnValue(ok({ user: ada({ banned: true }) }));
    const { user, dialog } = await openManage();
    const reason = within(dialog).getByLabelText("Reason (optional)");
    expect(reason).toHaveAccessibleDescription("It is mailed to them with the ban, and shown to admins here.");
    await user.type(reason, "  spamming the forum ");
    await user.selectOptions(within(dialog).getByLabelText("Ban for"), "7 days");
    await user.click(within(dialog).getByRole("button", { name: "Ban user" }));

    let confirm = screen.getByRole("dialog", { name: "Ban Ada?" });
    expect(confirm).toHaveTextContent(
      "Ban Ada for 7 days: every session of theirs ends at once, and they cannot sign in until the ban ends.",
    );
    expect(confirm).toHaveTextContent("We mail them to say so, with the reason: “spamming the forum”.");
    expect(client.admin.banUser).not.toHaveBeenCalled();
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog", { name: "Ban Ada?" })).not.toBeInTheDocument();
    expect(screen.getByRole("dialog", { name: "Manage Ada" })).toBeInTheDocument();
    expect(client.admin.banUser).not.toHaveBeenCalled();

    const reads = admin.listUserSessions.mock.calls.length;
    client.admin.listUsers.mockReturnValue(page({ banned: true, banReason: "spamming the forum", banExpires: later }));
    await user.click(within(dialog).getByRole("button", { name: "Ban user" }));
    confirm = screen.getByRole("dialog", { name: "Ban Ada?" });
    await user.click(within(confirm).getByRole("button", { name: "Yes, ban Ada" }));
    expect(client.admin.banUser).toHaveBeenCalledWith({ userId: "u-ada", banReason: "spamming the forum", banExpiresIn: 7 * 86400 });
    expect(await within(dialog).findByRole("status")).toHaveTextContent("User banned and signed out everywhere.");
    expect(await within(dialog).findByText(/^Banned: spamming the forum \(until /)).toBeInTheDocument();
    expect(admin.listUserSessions.mock.calls.length).toBeGreaterThan(reads);
  });

  it("bans until unbanned without a reason, sending neither", async () => {
    client.admin.listUsers.mockReturnValue(page());
    client.admin.banUser.mockReturnValue(ok({ user: ada({ banned: true }) }));
    const { user, dialog } = await openManage();
    await user.selectOptions(within(dialog).getByLabelText("Ban for"), "Until unbanned");
    await user.click(within(dialog).getByRole("button", { name: "Ban user" }));
    const confirm = screen.getByRole("dialog", { name: "Ban Ada?" });
    expect(confirm).toHaveTextContent("Ban Ada until an admin unbans them: every session of theirs ends at once");
    expect(confirm).toHaveTextContent("We mail them to say so, without a reason.");
    await user.click(within(confirm).getByRole("button", { name: "Yes, ban Ada" }));
    expect(client.admin.banUser).toHaveBeenCalledWith({ userId: "u-ada" });
  });

  it("shows a refusal in the confirmation", async () => {
    client.admin.listUsers.mockReturnValue(page());
    client.admin.banUser.mockReturnValue(refused(403, "YOU_CANNOT_BAN_YOURSELF", "You cannot ban yourself"));
    const { user, dialog } = await openManage();
    await user.click(within(dialog).getByRole("button", { name: "Ban user" }));
    const confirm = screen.getByRole("dialog", { name: "Ban Ada?" });
    await user.click(within(confirm).getByRole("button", { name: "Yes, ban Ada" }));
    expect(await within(confirm).findByRole("alert")).toBeInTheDocument();
    expect(within(dialog).queryByRole("status")).not.toBeInTheDocument();
  });
});
