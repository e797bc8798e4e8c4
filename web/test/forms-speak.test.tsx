import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, refused } from "./auth-client-mock";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

const { SignInForm } = await import("@/components/auth/SignInForm");
const { Announcer } = await import("@/components/Announcer");

/** The sign-in form with the shell's live regions, as a page has them. */
function page() {
  render(
    <>
      <SignInForm onSignedIn={vi.fn()} signUpHref="/sign-up/" />
      <Announcer />
    </>,
  );
  return { said: () => screen.getByTestId("announcer-polite").textContent };
}

describe("forms that speak (through useForm and Button, so every form)", () => {
  beforeEach(() => vi.resetAllMocks());

  it("moves focus to the first invalid field and announces what is wrong", async () => {
    const { said } = page();
    await userEvent.type(screen.getByLabelText("Password"), "whatever-it-is");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByLabelText("Email or username")).toHaveFocus();
    await waitFor(() => expect(said()).toBe("Enter your email or username."));

    await userEvent.clear(screen.getByLabelText("Password"));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    // The first on the page, not the last typed in.
    expect(screen.getByLabelText("Email or username")).toHaveFocus();
    await waitFor(() => expect(said()).toBe("2 fields need attention. Enter your email or username. Enter your password."));
    expect(client.signIn.email).not.toHaveBeenCalled();
  });

  it("moves focus to the field a server refusal is about", async () => {
    client.signIn.username.mockReturnValue(refused(401, "INVALID_USERNAME_OR_PASSWORD", "Invalid username or password"));
    const { said } = page();
    await userEvent.type(screen.getByLabelText("Email or username"), "ada.l");
    await userEvent.type(screen.getByLabelText("Password"), "wrong password");
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(screen.getByLabelText("Password")).toHaveFocus());
    await waitFor(() => expect(said()).toBe("Wrong username or password."));
  });

  it("keeps focus on the pending button, sends once, and announces the server's answer there", async () => {
    let answer: (value: unknown) => void = () => undefined;
    client.signIn.email.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    page();
    await userEvent.type(screen.getByLabelText("Email or username"), "ada@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "whatever-it-is");
    await userEvent.tab(); // past "remember me"
    await userEvent.tab();
    const button = screen.getByRole("button", { name: "Sign in" });
    expect(button).toHaveFocus();
    await userEvent.keyboard("{Enter}");

    const pending = screen.getByRole("button", { name: "Signing in…" });
    expect(pending).toHaveFocus();
    expect(pending).not.toBeDisabled();
    expect(pending).toHaveAttribute("aria-disabled", "true");
    expect(pending).toHaveAttribute("aria-busy", "true");
    await userEvent.keyboard("{Enter}");
    await userEvent.click(pending);
    expect(client.signIn.email).toHaveBeenCalledOnce();

    answer({ data: null, error: { status: 429, statusText: "Too Many Requests" } });
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts.");
    expect(screen.getByRole("button", { name: "Sign in" })).toHaveFocus();
    expect(screen.getByRole("button", { name: "Sign in" })).not.toHaveAttribute("aria-disabled");
  });
});
