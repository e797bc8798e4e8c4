import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

const { ForgotPasswordForm } = await import("@/components/auth/ForgotPasswordForm");
const { ResetPasswordForm } = await import("@/components/auth/ResetPasswordForm");

/** The page as a mailed link opens it. */
function at(search: string) {
  window.history.replaceState(null, "", `/reset-password/${search}`);
}

describe("ForgotPasswordForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("checks the address, asks for a link to the reset page, and never says whether it exists", async () => {
    client.requestPasswordReset.mockReturnValue(ok({ status: true, message: "If this email exists…" }));
    render(<ForgotPasswordForm />);
    await userEvent.click(screen.getByRole("button", { name: "Send the link" }));
    expect(screen.getByLabelText("Email")).toHaveAccessibleDescription("Enter your email address.");
    expect(client.requestPasswordReset).not.toHaveBeenCalled();
    await userEvent.type(screen.getByLabelText("Email"), " ada@example.com ");
    await userEvent.click(screen.getByRole("button", { name: "Send the link" }));
    expect(client.requestPasswordReset).toHaveBeenCalledWith({ email: "ada@example.com", redirectTo: "/reset-password/" });
    expect(screen.getByRole("status")).toHaveTextContent("If ada@example.com belongs to an account");
  });
});

describe("ResetPasswordForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("sets the new password with the link's token, after checking the two match", async () => {
    at("?token=abc123");
    client.resetPassword.mockReturnValue(ok({ status: true }));
    render(<ResetPasswordForm />);
    await userEvent.type(await screen.findByLabelText("New password"), "brand-new-pass");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "brand-new-pasS");
    await userEvent.click(screen.getByRole("button", { name: "Set the new password" }));
    expect(screen.getByLabelText("Repeat the new password")).toHaveAccessibleDescription("The two passwords differ.");
    expect(client.resetPassword).not.toHaveBeenCalled();
    await userEvent.clear(screen.getByLabelText("Repeat the new password"));
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "brand-new-pass");
    await userEvent.click(screen.getByRole("button", { name: "Set the new password" }));
    expect(client.resetPassword).toHaveBeenCalledWith({ newPassword: "brand-new-pass", token: "abc123" });
    expect(screen.getByRole("status")).toHaveTextContent("Your new password is set");
  });

  it("explains a dead link (from the redirect, or refused on submit) and offers a new one", async () => {
    at("?error=INVALID_TOKEN");
    const { unmount } = render(<ResetPasswordForm />);
    expect(await screen.findByRole("alert")).toHaveTextContent("This link no longer works");
    expect(screen.getByRole("link", { name: "Send a new link" })).toHaveAttribute("href", "/forgot-password/");
    unmount();

    at("?token=used");
    client.resetPassword.mockReturnValue(refused(400, "INVALID_TOKEN", "Invalid token"));
    render(<ResetPasswordForm />);
    await userEvent.type(await screen.findByLabelText("New password"), "brand-new-pass");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "brand-new-pass");
    await userEvent.click(screen.getByRole("button", { name: "Set the new password" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("This link no longer works");
  });

  it("keeps a too-short password next to its field", async () => {
    at("?token=abc123");
    client.resetPassword.mockReturnValue(refused(400, "PASSWORD_TOO_SHORT", "Password too short"));
    render(<ResetPasswordForm />);
    // The browser rules pass (8+ characters); the server's own minimum is longer here.
    await userEvent.type(await screen.findByLabelText("New password"), "eight-ch");
    await userEvent.type(screen.getByLabelText("Repeat the new password"), "eight-ch");
    await userEvent.click(screen.getByRole("button", { name: "Set the new password" }));
    expect(screen.getByLabelText("New password")).toHaveAccessibleDescription(/^This password is too short\./);
  });
});
