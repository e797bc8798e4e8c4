import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));

const { TwoFactorSection } = await import("@/components/account/TwoFactorSection");

const SECRET = "GFMWEZZTKI4VE23EOZMHMSC7JBQUQ4TG";
const URI = `otpauth://totp/Gatehouse:ada%40example.com?secret=${SECRET}&issuer=Gatehouse&digits=6&period=30`;
const CODES = Array.from({ length: 10 }, (_, i) => `code${i}-abcde`);
const wrongPassword = () => refused(400, "INVALID_PASSWORD", "Invalid password");

/** A Blob's text (jsdom's Blob has no `text()`). */
const read = (blob: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.readAsText(blob);
  });

const section = () => screen.getByRole("region", { name: "Two-step verification" });

describe("TwoFactorSection", () => {
  beforeEach(() => vi.resetAllMocks());
  afterEach(() => vi.restoreAllMocks());

  it("turns it on: password, QR code and key, a first code, then the backup codes once", async () => {
    const user = userEvent.setup();
    client.twoFactor.enable.mockReturnValueOnce(wrongPassword()).mockReturnValueOnce(ok({ method: "totp", totpURI: URI, backupCodes: CODES }));
    client.twoFactor.verifyTotp.mockReturnValueOnce(refused(401, "INVALID_CODE", "Invalid code")).mockReturnValueOnce(ok({ token: "t" }));
    renderFresh(<TwoFactorSection enabled={false} />);
    expect(within(section()).getByTestId("two-factor-status")).toHaveTextContent(/^Off/);

    const password = screen.getByLabelText("Password");
    await user.type(password, "not-my-password");
    await user.click(screen.getByRole("button", { name: "Turn on two-step verification" }));
    expect(client.twoFactor.enable).toHaveBeenLastCalledWith({ password: "not-my-password" });
    expect(password).toHaveAccessibleDescription("Your current password is not right.");

    await user.clear(password);
    await user.type(password, "correct-horse-battery");
    await user.click(screen.getByRole("button", { name: "Turn on two-step verification" }));
    const qr = await screen.findByRole("img", { name: "QR code for your authenticator app" });
    expect(qr.tagName.toLowerCase()).toBe("svg");
    expect(screen.getByTestId("totp-secret")).toHaveTextContent("GFMW EZZT KI4V E23E OZMH MSC7 JBQU Q4TG");

    const code = screen.getByLabelText("Code from the app");
    await user.type(code, "111111");
    await user.click(screen.getByRole("button", { name: "Confirm" }));
    expect(code).toHaveAccessibleDescription("This code is not right. Check it and try again.");
    await user.clear(code);
    await user.type(code, "123456");
    await user.click(screen.getByRole("button", { name: "Confirm" }));
    expect(client.twoFactor.verifyTotp).toHaveBeenLastCalledWith({ code: "123456" });

    const shown = await screen.findByTestId("backup-codes");
    expect(screen.getByText("Two-step verification is on.")).toBeInTheDocument();
    expect(within(shown).getByRole("heading", { name: "Your backup codes" })).toHaveFocus();
    expect(within(shown).getAllByRole("listitem").map((li) => li.textContent)).toEqual(CODES);
    expect(shown).toHaveTextContent("they will not be shown again");

    await user.click(within(shown).getByRole("button", { name: "Copy" }));
    expect(await navigator.clipboard.readText()).toBe(`${CODES.join("\n")}\n`);
    expect(within(shown).getByRole("status")).toHaveTextContent("Copied to the clipboard.");

    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:codes";
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      expect(this.download).toBe("gatehouse-backup-codes.txt");
      expect(this.href).toBe("blob:codes");
    });
    await user.click(within(shown).getByRole("button", { name: "Download" }));
    expect(click).toHaveBeenCalledOnce();
    const saved = await read(blobs[0] as Blob);
    for (const backup of CODES) expect(saved).toContain(backup);

    await user.click(within(shown).getByRole("button", { name: "I have saved them" }));
    expect(screen.queryByTestId("backup-codes")).not.toBeInTheDocument();
  });

  it("regenerates the backup codes after the password", async () => {
    client.twoFactor.generateBackupCodes.mockReturnValue(ok({ status: true, backupCodes: CODES }));
    renderFresh(<TwoFactorSection enabled />);
    expect(within(section()).getByTestId("two-factor-status")).toHaveTextContent(/^On/);
    await userEvent.click(screen.getByRole("button", { name: "Regenerate backup codes" }));
    const password = screen.getByLabelText("Password");
    expect(password).toHaveFocus();
    await userEvent.type(password, "correct-horse-battery");
    await userEvent.click(screen.getByRole("button", { name: "Regenerate backup codes" }));
    expect(client.twoFactor.generateBackupCodes).toHaveBeenCalledWith({ password: "correct-horse-battery" });
    const shown = await screen.findByTestId("backup-codes");
    expect(within(shown).getByRole("heading", { name: "Your new backup codes" })).toBeInTheDocument();
    expect(within(shown).getAllByRole("listitem")).toHaveLength(10);
  });

  it("turns it off with the password, a wrong one shown next to the field", async () => {
    client.twoFactor.disable.mockReturnValueOnce(wrongPassword()).mockReturnValueOnce(ok({ status: true }));
    renderFresh(<TwoFactorSection enabled />);
    await userEvent.click(screen.getByRole("button", { name: "Turn off" }));
    const password = screen.getByLabelText("Password");
    await userEvent.click(screen.getByRole("button", { name: "Turn off two-step verification" }));
    expect(password).toHaveAccessibleDescription("Enter your password.");
    expect(client.twoFactor.disable).not.toHaveBeenCalled();

    await userEvent.type(password, "wrong-password");
    await userEvent.click(screen.getByRole("button", { name: "Turn off two-step verification" }));
    expect(password).toHaveAccessibleDescription("Your current password is not right.");
    await userEvent.clear(password);
    await userEvent.type(password, "correct-horse-battery");
    await userEvent.click(screen.getByRole("button", { name: "Turn off two-step verification" }));
    expect(client.twoFactor.disable).toHaveBeenLastCalledWith({ password: "correct-horse-battery" });
    expect(await screen.findByText("Two-step verification is off.")).toBeInTheDocument();
    expect(screen.queryByLabelText("Password")).not.toBeInTheDocument();
  });

  it("cancels: back to the buttons, nothing sent", async () => {
    renderFresh(<TwoFactorSection enabled />);
    await userEvent.click(screen.getByRole("button", { name: "Turn off" }));
    await userEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.getByRole("button", { name: "Turn off" })).toBeInTheDocument();
    expect(client.twoFactor.disable).not.toHaveBeenCalled();
  });
});
