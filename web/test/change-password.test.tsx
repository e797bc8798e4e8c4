import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));

const { ChangePasswordForm } = await import("@/components/account/ChangePasswordForm");

describe("ChangePasswordForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("refuses two different new passwords before asking the server", async () => {
    render(<ChangePasswordForm userId="u1" />);
    await userEvent.type(screen.getByLabelText("Current password"), "old-password-1");
    await userEvent.type(screen.getByLabelText("New password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "new-password-2");
    await userEvent.click(screen.getByRole("button", { name: "Change password" }));
    expect(screen.getByLabelText("Repeat the new password")).toHaveAccessibleDescription("The two new passwords differ.");
    expect(client.changePassword).not.toHaveBeenCalled();
  });

  it("shows a wrong current password next to it, then succeeds and clears the fields", async () => {
    client.changePassword.mockReturnValueOnce(refused(400, "INVALID_PASSWORD", "Invalid password")).mockReturnValueOnce(ok({ token: null }));
    render(<ChangePasswordForm userId="u1" />);
    await userEvent.type(screen.getByLabelText("Current password"), "not-it-at-all");
    await userEvent.type(screen.getByLabelText("New password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "new-password-1");
    await userEvent.click(screen.getByLabelText("Sign out of all other sessions"));
    await userEvent.click(screen.getByRole("button", { name: "Change password" }));
    expect(client.changePassword).toHaveBeenLastCalledWith({
      currentPassword: "not-it-at-all",
      newPassword: "new-password-1",
      revokeOtherSessions: false,
    });
    expect(screen.getByLabelText("Current password")).toHaveAccessibleDescription("Your current password is not right.");

    await userEvent.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Password changed.");
    expect(screen.getByLabelText("Current password")).toHaveValue("");
    expect(screen.getByLabelText("New password")).toHaveValue("");
  });

  it("puts a too-short new password (by the server's own limit) on the new password", async () => {
    client.changePassword.mockReturnValue(refused(400, "PASSWORD_TOO_SHORT", "Password too short"));
    render(<ChangePasswordForm userId="u1" />);
    await userEvent.type(screen.getByLabelText("Current password"), "old-password-1");
    await userEvent.type(screen.getByLabelText("New password"), "nine-char");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "nine-char");
    await userEvent.click(screen.getByRole("button", { name: "Change password" }));
    expect(screen.getByLabelText("New password")).toHaveAccessibleDescription(/^This password is too short\./);
  });
});
