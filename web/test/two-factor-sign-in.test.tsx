import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { navigation, parseMethods, twoFactorPath } from "@/lib/two-factor";
import { renderFresh } from "./render";

vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

/** The stand-in server: a path and the request, answered. */
const server = vi.fn<(path: string, init?: RequestInit) => Response>();
// The real client (its twoFactorClient plugin included), its fetch the stand-in: stubbed before
// the client is created, which keeps the fetch it finds.
vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) =>
  Promise.resolve(server(new URL(input instanceof Request ? input.url : input.toString(), "http://localhost").pathname, init)),
);
const { SignInForm } = await import("@/components/auth/SignInForm");

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("twoFactorPath", () => {
  it("carries the methods and where the sign-in was going", () => {
    expect(twoFactorPath(["totp", "otp"], "/account/")).toBe("/sign-in/two-factor/?methods=totp,otp&callbackURL=%2Faccount%2F");
    expect(twoFactorPath(["otp", "sms"], "/")).toBe("/sign-in/two-factor/?methods=otp");
    expect(twoFactorPath([], "/")).toBe("/sign-in/two-factor/");
  });

  it("reads the methods back, unknown ones left out", () => {
    expect(parseMethods("totp,otp")).toEqual(["totp", "otp"]);
    expect(parseMethods("otp,sms")).toEqual(["otp"]);
    expect(parseMethods(null)).toBeNull();
    expect(parseMethods("sms")).toBeNull();
  });
});

describe("SignInForm with a second factor", () => {
  beforeEach(() => {
    window.history.replaceState(null, "", "/sign-in/?callbackURL=%2Faccount%2F");
    server.mockImplementation((path) => {
      if (path.endsWith("/captcha")) return json({ provider: null, siteKey: null, endpoints: [] });
      if (path.endsWith("/sign-in/email")) return json({ twoFactorRedirect: true, twoFactorMethods: ["totp", "otp"] });
      return json({ code: "NOT_FOUND", message: "Not found" }, 404);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it("goes on to the two-factor page, keeping the destination, without signing in", async () => {
    const go = vi.spyOn(navigation, "go").mockImplementation(() => undefined);
    const onSignedIn = vi.fn();
    renderFresh(<SignInForm onSignedIn={onSignedIn} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));

    await waitFor(() => expect(go).toHaveBeenCalledWith("/sign-in/two-factor/?methods=totp,otp&callbackURL=%2Faccount%2F"));
    expect(server).toHaveBeenCalledWith("/api/auth/sign-in/email", expect.anything());
    expect(onSignedIn).not.toHaveBeenCalled();
    // Still busy while the browser loads the next page: no second sign-in.
    const button = screen.getByRole("button", { name: "Signing in…" });
    expect(button).toHaveAttribute("aria-disabled", "true");
    await userEvent.click(button);
    expect(server.mock.calls.filter(([path]) => String(path).endsWith("/sign-in/email"))).toHaveLength(1);
  });

  it("signs in as before when no second factor is asked for", async () => {
    server.mockImplementation((path) =>
      path.endsWith("/sign-in/email") ? json({ redirect: false, token: "t", user: { id: "u1" } }) : json({ provider: null, siteKey: null, endpoints: [] }),
    );
    const go = vi.spyOn(navigation, "go").mockImplementation(() => undefined);
    const onSignedIn = vi.fn();
    render(<SignInForm onSignedIn={onSignedIn} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledOnce());
    expect(go).not.toHaveBeenCalled();
  });
});
