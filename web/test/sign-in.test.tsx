import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

const { SignInForm } = await import("@/components/auth/SignInForm");

describe("SignInForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("asks for both fields before calling the server", async () => {
    const onSignedIn = vi.fn();
    render(<SignInForm onSignedIn={onSignedIn} signUpHref="/sign-up/" />);
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByLabelText("Email or username")).toHaveAccessibleDescription("Enter your email or username.");
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription("Enter your password.");
    expect(screen.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    expect(client.signIn.email).not.toHaveBeenCalled();
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it("signs in by email when the identifier has an @, with remember-me", async () => {
    client.signIn.email.mockReturnValue(ok());
    const onSignedIn = vi.fn();
    render(<SignInForm onSignedIn={onSignedIn} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), " ada@example.com ");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByLabelText("Remember me on this device"));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(client.signIn.email).toHaveBeenCalledWith({ email: "ada@example.com", password: "correct horse", rememberMe: false });
    expect(client.signIn.username).not.toHaveBeenCalled();
    expect(onSignedIn).toHaveBeenCalledOnce();
  });

  it("signs in by username otherwise, and shows a wrong password next to the password", async () => {
    client.signIn.username.mockReturnValue(refused(401, "INVALID_USERNAME_OR_PASSWORD", "Invalid username or password"));
    const onSignedIn = vi.fn();
    render(<SignInForm onSignedIn={onSignedIn} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada.l");
    await userEvent.type(screen.getByLabelText("Password"), "wrong password");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(client.signIn.username).toHaveBeenCalledWith({ username: "ada.l", password: "wrong password", rememberMe: true });
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription("Wrong username or password.");
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it("shows a ban or a rate limit at the top of the form, in the server's or our words", async () => {
    client.signIn.email.mockReturnValueOnce(
      refused(403, "BANNED_USER", "You have been banned from this application. Please contact support if you believe this is an error."),
    );
    render(<SignInForm onSignedIn={vi.fn()} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "whatever-it-is");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByRole("alert")).toHaveTextContent("You have been banned from this application.");

    client.signIn.email.mockReturnValueOnce(Promise.resolve({ data: null, error: { status: 429, statusText: "Too Many Requests" } }));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Too many attempts. Wait a moment and try again.");
  });

  it("reports an unreachable server instead of hanging", async () => {
    client.signIn.email.mockRejectedValue(new TypeError("Failed to fetch"));
    render(<SignInForm onSignedIn={vi.fn()} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "whatever-it-is");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByRole("alert")).toHaveTextContent("We could not reach the server.");
    expect(screen.getByRole("button", { name: "Sign in" })).toBeEnabled();
  });
});
