import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
const push = vi.fn();
vi.mock("next/navigation", () => ({ useRouter: () => ({ push }), usePathname: () => "/" }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

const { UserMenu } = await import("@/components/shell/UserMenu");
const { VerifyEmailBanner } = await import("@/components/shell/VerifyEmailBanner");
const { rememberVerificationSent } = await import("@/lib/verification-sent");
const { initials } = await import("@/components/shell/Avatar");
// The shared mock has no hasPermission: this suite adds one.
const admin = client.admin as unknown as { hasPermission: ReturnType<typeof vi.fn> };

const session = (user: Partial<{ name: string; email: string; image: string | null }> = {}) =>
  ({
    user: { id: "u1", name: "Ada Lovelace", email: "ada@example.com", image: null, emailVerified: true, ...user },
    session: { id: "s1", token: "t", userId: "u1" },
  }) as never;

describe("the user's menu", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    admin.hasPermission = vi.fn();
  });

  it("shows who is signed in by initials, and opens to their places and sign-out", async () => {
    admin.hasPermission.mockReturnValue(ok({ success: false }));
    renderFresh(<UserMenu session={session()} />);
    const button = screen.getByRole("button", { name: "Account menu of Ada Lovelace" });
    expect(button).toHaveTextContent("AL");
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("link", { name: "Account" })).toBeNull();

    await userEvent.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByRole("link", { name: "Account" })).toHaveAttribute("href", "/account/");
    expect(screen.getByRole("link", { name: "Organizations" })).toHaveAttribute("href", "/organization/");
    expect(screen.getByText("ada@example.com")).toBeVisible();
    await waitFor(() => expect(admin.hasPermission).toHaveBeenCalled());
    expect(screen.queryByRole("link", { name: "Admin" })).toBeNull();

    // Escape closes it and gives focus back to the button.
    await userEvent.keyboard("{Escape}");
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(button).toHaveFocus();
  });

  it("offers the admin area to those who may open it, and signs out", async () => {
    admin.hasPermission.mockReturnValue(ok({ success: true }));
    client.signOut.mockReturnValue(ok({ success: true }));
    renderFresh(<UserMenu session={session({ image: "https://cdn.example.com/ada.png" })} />);
    const button = screen.getByRole("button", { name: "Account menu of Ada Lovelace" });
    // The saved picture, decorative: the button is named in text.
    expect(button.querySelector("img")).toHaveAttribute("src", "https://cdn.example.com/ada.png");
    await userEvent.click(button);
    expect(await screen.findByRole("link", { name: "Admin" })).toHaveAttribute("href", "/admin/");
    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    await waitFor(() => expect(push).toHaveBeenCalledWith("/sign-in/"));
  });

  it("says why a sign-out failed and stays signed in", async () => {
    admin.hasPermission.mockReturnValue(ok({ success: false }));
    client.signOut.mockReturnValue(refused(500, "", ""));
    renderFresh(<UserMenu session={session()} />);
    await userEvent.click(screen.getByRole("button", { name: "Account menu of Ada Lovelace" }));
    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Sign-out failed: Something went wrong on our side.");
    expect(push).not.toHaveBeenCalled();
  });

  it("makes initials from the name, else the address", () => {
    expect(initials("Ada Lovelace King", "a@x.io")).toBe("AL");
    expect(initials("", "zoe@example.com")).toBe("Z");
    expect(initials("élodie", "e@x.io")).toBe("É");
  });
});

describe("the banner of an unverified address", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    window.sessionStorage.clear();
  });

  it("says the address is not verified and mails a new link, once at a time", async () => {
    let answer: (value: unknown) => void = () => undefined;
    client.sendVerificationEmail.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    renderFresh(<VerifyEmailBanner email="ada@example.com" />);
    expect(screen.getByRole("region", { name: "Email verification" })).toHaveTextContent(
      "Your email address ada@example.com is not verified yet.",
    );
    const send = screen.getByRole("button", { name: "Send me a verification link" });
    await userEvent.click(send);
    await userEvent.click(screen.getByRole("button", { name: "Sending…" }));
    expect(client.sendVerificationEmail).toHaveBeenCalledOnce();
    expect(client.sendVerificationEmail).toHaveBeenCalledWith({ email: "ada@example.com", callbackURL: "/verify-email/" });
    answer({ data: { status: true }, error: null });
    expect(await screen.findByText(/We sent a link to/)).toHaveTextContent("We sent a link to ada@example.com. Open it to verify your address.");
    // Sent, it may be sent again (a lost mail), not twice at once.
    expect(screen.getByRole("button", { name: "Send it again" })).toBeVisible();
  });

  it("right after a sign-up that mailed a link, says it was sent and offers it again", async () => {
    let answer: (value: unknown) => void = () => undefined;
    client.sendVerificationEmail.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    rememberVerificationSent("Ada@Example.com");
    renderFresh(<VerifyEmailBanner email="ada@example.com" />);
    const banner = screen.getByRole("region", { name: "Email verification" });
    expect(banner).toHaveTextContent("We sent a link to ada@example.com.");
    await userEvent.click(screen.getByRole("button", { name: "Send it again" }));
    expect(client.sendVerificationEmail).toHaveBeenCalledWith({ email: "ada@example.com", callbackURL: "/verify-email/" });
    // While another is on its way, it still says one was sent (not "not verified" again).
    expect(screen.getByRole("button", { name: "Sending…" })).toBeVisible();
    expect(banner).toHaveTextContent("We sent a link to ada@example.com.");
    answer({ data: { status: true }, error: null });
    expect(await screen.findByRole("button", { name: "Send it again" })).toBeVisible();
    // Another address (another account in this tab) was not mailed by this tab's sign-up.
    renderFresh(<VerifyEmailBanner email="bob@example.com" />);
    expect(screen.getByRole("button", { name: "Send me a verification link" })).toBeVisible();
  });

  it("says why a link could not be sent, and lets the user try again", async () => {
    client.sendVerificationEmail.mockReturnValue(Promise.resolve({ data: null, error: { status: 429, statusText: "" } }));
    renderFresh(<VerifyEmailBanner email="ada@example.com" />);
    await userEvent.click(screen.getByRole("button", { name: "Send me a verification link" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts.");
    expect(screen.getByRole("button", { name: "Send me a verification link" })).toBeVisible();
  });
});
