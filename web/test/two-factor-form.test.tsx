import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";

const router = { push: vi.fn(), replace: vi.fn() };
vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));
vi.mock("next/navigation", () => ({ useRouter: () => router }));

const { TwoFactorForm } = await import("@/components/auth/TwoFactorForm");

/** The page as the sign-in form (or the mailed link, with no query) opens it. */
function open(search: string) {
  window.history.replaceState(null, "", `/sign-in/two-factor/${search}`);
  renderFresh(<TwoFactorForm />);
}

const signedIn = { user: { id: "u1" }, session: { id: "s1" } };

describe("TwoFactorForm", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    client.getSession.mockReturnValue(ok(null));
  });

  it("verifies a code from the authenticator app, trusting the device, then goes where the sign-in was going", async () => {
    client.twoFactor.verifyTotp.mockReturnValue(ok({ token: "t", user: { id: "u1" } }));
    open("?methods=totp,otp&callbackURL=%2Faccount%2F");
    const code = await screen.findByLabelText("Code from your authenticator app");
    expect(code).toHaveFocus();
    expect(code).toHaveAttribute("inputmode", "numeric");
    expect(code).toHaveAttribute("autocomplete", "one-time-code");

    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(code).toHaveAccessibleDescription("Enter the code.");
    expect(client.twoFactor.verifyTotp).not.toHaveBeenCalled();

    client.getSession.mockReturnValue(ok(signedIn));
    await userEvent.type(code, "123 456");
    await userEvent.click(screen.getByLabelText("Trust this device for 30 days"));
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(client.twoFactor.verifyTotp).toHaveBeenCalledWith({ code: "123456", trustDevice: true });
    await waitFor(() => expect(router.replace).toHaveBeenCalledWith("/account/"));
  });

  it("shows a wrong code next to the field and keeps the focus there", async () => {
    client.twoFactor.verifyTotp.mockReturnValue(refused(401, "INVALID_CODE", "Invalid code"));
    open("?methods=totp,otp");
    const code = await screen.findByLabelText("Code from your authenticator app");
    await userEvent.type(code, "000000");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(code).toHaveAccessibleDescription("This code is not right. Check it and try again.");
    expect(code).toHaveAttribute("aria-invalid", "true");
    expect(code).toHaveFocus();
    expect(router.replace).not.toHaveBeenCalled();
  });

  it("emails a code on request, sends another, and verifies it with verify-otp", async () => {
    client.twoFactor.sendOtp.mockReturnValue(ok({ status: true }));
    client.twoFactor.verifyOtp.mockReturnValue(ok({ token: "t", user: { id: "u1" } }));
    open("?methods=totp,otp");
    await userEvent.click(await screen.findByRole("button", { name: "Email me a code" }));
    expect(client.twoFactor.sendOtp).toHaveBeenCalledOnce();
    expect(await screen.findByRole("status")).toHaveTextContent("We sent a code to your email address.");
    const code = screen.getByLabelText("Code from the email");
    expect(code).toHaveFocus();

    await userEvent.click(screen.getByRole("button", { name: "Send another code" }));
    expect(client.twoFactor.sendOtp).toHaveBeenCalledTimes(2);
    expect(await screen.findByRole("status")).toHaveTextContent("We sent you a new code.");

    await userEvent.type(code, "654321");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(client.twoFactor.verifyOtp).toHaveBeenCalledWith({ code: "654321", trustDevice: false });
    expect(client.twoFactor.verifyTotp).not.toHaveBeenCalled();
    await waitFor(() => expect(router.replace).toHaveBeenCalledWith("/"));
  });

  it("takes a backup code instead", async () => {
    client.twoFactor.verifyBackupCode.mockReturnValueOnce(refused(401, "INVALID_BACKUP_CODE", "Invalid backup code")).mockReturnValueOnce(ok({ token: "t" }));
    open("?methods=totp");
    await userEvent.click(await screen.findByRole("button", { name: "Use a backup code" }));
    const code = screen.getByLabelText("Backup code");
    expect(code).toHaveFocus();
    // A user with the app only is not offered codes by mail.
    expect(screen.queryByRole("button", { name: "Email me a code" })).not.toBeInTheDocument();
    await userEvent.type(code, " aKq0j-LbwvW ");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(client.twoFactor.verifyBackupCode).toHaveBeenCalledWith({ code: "aKq0j-LbwvW", trustDevice: false });
    expect(code).toHaveAccessibleDescription("This backup code is not right, or it was already used.");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(router.replace).toHaveBeenCalledWith("/"));
  });

  it("asks to sign in again when the pending sign-in is over", async () => {
    client.twoFactor.verifyTotp.mockReturnValue(refused(401, "INVALID_TWO_FACTOR_COOKIE", "Invalid two factor cookie"));
    open("?methods=totp,otp&callbackURL=%2Faccount%2F");
    await userEvent.type(await screen.findByLabelText("Code from your authenticator app"), "123456");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("This sign-in has timed out. Sign in again.");
    expect(screen.getByRole("link", { name: "Sign in again" })).toHaveAttribute("href", "/sign-in/?callbackURL=%2Faccount%2F");
    expect(screen.queryByLabelText("Code from your authenticator app")).not.toBeInTheDocument();
  });

  it("says so when too many wrong codes used the sign-in up", async () => {
    client.twoFactor.verifyOtp.mockReturnValue(refused(400, "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE", "Too many attempts"));
    open("");
    await userEvent.type(await screen.findByLabelText("Code from the email"), "111111");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many wrong codes for this sign-in. Sign in again.");
    expect(screen.getByRole("link", { name: "Sign in again" })).toHaveAttribute("href", "/sign-in/");
  });

  it("opened from the mailed link: expects the mailed code, without sending another", async () => {
    open("");
    expect(await screen.findByLabelText("Code from the email")).toHaveFocus();
    expect(screen.getByText("Enter the 6-digit code we emailed you. It works for a few minutes.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send another code" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Use a code from your authenticator app" })).toBeInTheDocument();
    expect(client.twoFactor.sendOtp).not.toHaveBeenCalled();
  });

  it("goes on at once when already signed in", async () => {
    client.getSession.mockReturnValue(ok(signedIn));
    open("?methods=totp&callbackURL=%2Fadmin%2F");
    await waitFor(() => expect(router.replace).toHaveBeenCalledWith("/admin/"));
  });
});
