import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

const { SignUpForm } = await import("@/components/auth/SignUpForm");
const { activate } = await import("@/lib/i18n");
const PL = (await import("@/messages/pl/auth.json")).default;
const { wasVerificationSent } = await import("@/lib/verification-sent");

async function fill(values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    await userEvent.type(screen.getByLabelText(label), value);
  }
}

describe("SignUpForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("shows the server's rules inline as the user leaves each field", async () => {
    render(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" />);
    await fill({ Email: "not-an-email" });
    await userEvent.tab();
    expect(screen.getByLabelText("Email")).toHaveAccessibleDescription("Enter an email address like name@example.com.");
    await fill({ Password: "short" });
    await userEvent.tab();
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription(/Use at least 8 characters\./);
    await fill({ "Username (optional)": "no spaces!" });
    await userEvent.tab();
    expect(screen.getByLabelText("Username (optional)")).toHaveAccessibleDescription(/Use only letters, digits, underscores and dots\./);
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(screen.getByLabelText("Name")).toHaveAccessibleDescription("Enter your name.");
    expect(client.signUp.email).not.toHaveBeenCalled();
  });

  it("sends the username with its display form, and nothing when it is left empty", async () => {
    client.signUp.email.mockReturnValue(ok());
    const onSignedUp = vi.fn();
    const { unmount } = render(<SignUpForm onSignedUp={onSignedUp} signInHref="/sign-in/" />);
    await fill({ Name: "Ada", Email: "ada@example.com", Password: "correct horse", "Username (optional)": "Ada.L" });
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(client.signUp.email).toHaveBeenLastCalledWith({
      name: "Ada",
      email: "ada@example.com",
      password: "correct horse",
      username: "Ada.L",
      displayUsername: "Ada.L",
      callbackURL: "/verify-email/",
      language: 3,
    });
    expect(onSignedUp).toHaveBeenCalledOnce();
    unmount();

    render(<SignUpForm onSignedUp={onSignedUp} signInHref="/sign-in/" />);
    await fill({ Name: "Bo", Email: "bo@example.com", Password: "correct horse" });
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(client.signUp.email).toHaveBeenLastCalledWith({
      name: "Bo",
      email: "bo@example.com",
      password: "correct horse",
      callbackURL: "/verify-email/",
      language: 3,
    });
  });

  it("speaks the app's language and signs the user up in it (their mails' language)", async () => {
    client.signUp.email.mockReturnValue(ok());
    await activate("pl");
    try {
      render(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" />);
      expect(screen.getByRole("heading", { name: PL["signUp.title"] })).toBeVisible();
      await fill({ [PL["signUp.name"]]: "Ola", [PL["signUp.email"]]: "ola@example.com", [PL["signUp.password"]]: "correct horse" });
      await userEvent.click(screen.getByRole("button", { name: PL["signUp.submit"] }));
      expect(client.signUp.email).toHaveBeenLastCalledWith(expect.objectContaining({ email: "ola@example.com", language: 15 }));
    } finally {
      await activate("en");
    }
  });

  it.each([
    ["USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", 422, "Email", "An account with this email already exists. Use another email."],
    ["USERNAME_IS_ALREADY_TAKEN", 422, "Username (optional)", "This username is taken. Try another."],
    ["PASSWORD_TOO_SHORT", 400, "Password", "This password is too short."],
    ["INVALID_EMAIL", 400, "Email", "This email address is not valid."],
  ])("puts %s next to its field", async (code, status, label, message) => {
    client.signUp.email.mockReturnValue(refused(status, code, "server words"));
    const onSignedUp = vi.fn();
    render(<SignUpForm onSignedUp={onSignedUp} signInHref="/sign-in/" />);
    await fill({ Name: "Ada", Email: "ada@example.com", Password: "correct horse", "Username (optional)": "ada" });
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(screen.getByLabelText(label)).toHaveAccessibleDescription(new RegExp(`^${message.replace(/[.?]/g, "\\$&")}`));
    expect(screen.getByLabelText(label)).toHaveAttribute("aria-invalid", "true");
    expect(onSignedUp).not.toHaveBeenCalled();
  });

  it("asks the user to verify their address when sign-up starts no session", async () => {
    client.signUp.email.mockReturnValue(ok({ token: null, user: { id: "u1", email: "ada@example.com" } }));
    const onSignedUp = vi.fn();
    render(<SignUpForm onSignedUp={onSignedUp} signInHref="/sign-in/" />);
    await fill({ Name: "Ada", Email: "ada@example.com", Password: "correct horse" });
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(screen.getByRole("status")).toHaveTextContent("We sent a link to ada@example.com");
    expect(onSignedUp).not.toHaveBeenCalled();
  });

  it("signed in with a link on its way, leaves word for the verify-email banner", async () => {
    window.sessionStorage.clear();
    client.signUp.email.mockReturnValue(ok({ token: "t", user: { id: "u1", email: "ada@example.com" }, verificationEmailSent: true }));
    const onSignedUp = vi.fn();
    render(<SignUpForm onSignedUp={onSignedUp} signInHref="/sign-in/" />);
    await fill({ Name: "Ada", Email: "ada@example.com", Password: "correct horse" });
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(onSignedUp).toHaveBeenCalledOnce();
    expect(wasVerificationSent("ada@example.com")).toBe(true);
  });

  it("says nothing of a link when none was mailed", async () => {
    window.sessionStorage.clear();
    client.signUp.email.mockReturnValue(ok({ token: "t", user: { id: "u1", email: "ada@example.com" } }));
    render(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" />);
    await fill({ Name: "Ada", Email: "ada@example.com", Password: "correct horse" });
    await userEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect(wasVerificationSent("ada@example.com")).toBe(false);
  });
});
