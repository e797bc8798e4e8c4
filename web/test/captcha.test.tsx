import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useImperativeHandle, type Ref } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";
import { coversEndpoint } from "@/components/auth/captcha/pattern";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

/** Each provider's reset, as the forms call it through the library's instance. */
const resets = vi.hoisted(() => ({ turnstile: vi.fn(), hcaptcha: vi.fn(), recaptcha: vi.fn() }));

// The libraries as stand-ins: a button that passes the check with the token "tok-1".
vi.mock("@marsidev/react-turnstile", () => ({
  Turnstile: ({ onSuccess, ref }: { onSuccess: (token: string) => void; ref: Ref<unknown> }) => {
    useImperativeHandle(ref, () => ({ reset: resets.turnstile }));
    return (
      <button type="button" onClick={() => onSuccess("tok-1")}>
        Turnstile: verify
      </button>
    );
  },
}));
vi.mock("@hcaptcha/react-hcaptcha", () => ({
  default: ({ onVerify, ref }: { onVerify: (token: string, ekey: string) => void; ref: Ref<unknown> }) => {
    useImperativeHandle(ref, () => ({ resetCaptcha: resets.hcaptcha }));
    return (
      <button type="button" onClick={() => onVerify("tok-1", "ekey")}>
        hCaptcha: verify
      </button>
    );
  },
}));
vi.mock("react-google-recaptcha", () => ({
  default: ({ onChange, ref }: { onChange: (token: string | null) => void; ref: Ref<unknown> }) => {
    useImperativeHandle(ref, () => ({ reset: resets.recaptcha }));
    return (
      <button type="button" onClick={() => onChange("tok-1")}>
        reCAPTCHA: verify
      </button>
    );
  },
}));

const { SignUpForm } = await import("@/components/auth/SignUpForm");
const { SignInForm } = await import("@/components/auth/SignInForm");
const { ForgotPasswordForm } = await import("@/components/auth/ForgotPasswordForm");

type Config = { provider: string | null; siteKey: string | null; endpoints: string[] };
const ALL = ["/sign-up/email", "/sign-in/email", "/request-password-reset"];

/** The server's answer to GET /api/auth/captcha. */
function serve(config: Config) {
  client.$fetch.mockImplementation((path: string) => (path === "/captcha" ? ok(config) : ok({ providers: [] })));
}

async function fillSignUp() {
  await userEvent.type(screen.getByLabelText("Name"), "Ada");
  await userEvent.type(screen.getByLabelText("Email"), "ada@example.com");
  await userEvent.type(screen.getByLabelText("Password"), "correct horse");
}

const signUp = () => userEvent.click(screen.getByRole("button", { name: "Create account" }));

describe("the captcha on the guarded forms", () => {
  beforeEach(() => vi.resetAllMocks());

  it("shows no widget and sends no header when the server has captcha off", async () => {
    serve({ provider: null, siteKey: null, endpoints: [] });
    client.signUp.email.mockReturnValue(ok({ token: "t" }));
    renderFresh(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" />);
    await waitFor(() => expect(client.$fetch).toHaveBeenCalledWith("/captcha", { method: "GET" }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByRole("group", { name: "Security check" })).not.toBeInTheDocument();
    await fillSignUp();
    await signUp();
    expect(client.signUp.email).toHaveBeenCalledOnce();
    expect(client.signUp.email.mock.calls[0]?.[0]).not.toHaveProperty("fetchOptions");
  });

  it("keeps the submit off until the settings arrive, and treats unreadable settings as off", async () => {
    let answer: (value: unknown) => void = () => {};
    client.$fetch.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    client.requestPasswordReset.mockReturnValue(ok({ status: true }));
    renderFresh(<ForgotPasswordForm />);
    expect(screen.getByRole("button", { name: "Send the link" })).toBeDisabled();
    answer({ data: null, error: { status: 404, statusText: "Not Found" } });
    await waitFor(() => expect(screen.getByRole("button", { name: "Send the link" })).toBeEnabled());
    expect(screen.queryByRole("group", { name: "Security check" })).not.toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Email"), "ada@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Send the link" }));
    expect(client.requestPasswordReset).toHaveBeenCalledWith({ email: "ada@example.com", redirectTo: "/reset-password/" });
  });

  it("shows no widget on a form whose endpoint the server does not guard", async () => {
    serve({ provider: "cloudflare-turnstile", siteKey: "site", endpoints: ["/sign-up/email"] });
    renderFresh(<ForgotPasswordForm />);
    await waitFor(() => expect(client.$fetch).toHaveBeenCalledWith("/captcha", { method: "GET" }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByRole("group", { name: "Security check" })).not.toBeInTheDocument();
  });

  it("asks for the check before sending, then sends its token as x-captcha-response", async () => {
    serve({ provider: "cloudflare-turnstile", siteKey: "site", endpoints: ALL });
    client.signUp.email.mockReturnValue(ok({ token: "t" }));
    const onSignedUp = vi.fn();
    renderFresh(<SignUpForm onSignedUp={onSignedUp} signInHref="/sign-in/" />);
    const group = await screen.findByRole("group", { name: "Security check" });
    expect(group).toHaveAccessibleDescription("This confirms a person, not a program, is sending the form.");
    const verify = await screen.findByRole("button", { name: "Turnstile: verify" });

    await fillSignUp();
    await signUp();
    expect(screen.getByRole("alert")).toHaveTextContent("Complete the check above.");
    expect(group).toHaveAccessibleDescription(/^Complete the check above\./);
    expect(client.signUp.email).not.toHaveBeenCalled();

    await userEvent.click(verify);
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    await signUp();
    expect(client.signUp.email).toHaveBeenCalledWith(
      expect.objectContaining({ email: "ada@example.com", fetchOptions: { headers: { "x-captcha-response": "tok-1" } } }),
    );
    expect(onSignedUp).toHaveBeenCalledOnce();
  });

  it("after a refusal says why beside the widget, resets it and wants a new token", async () => {
    serve({ provider: "cloudflare-turnstile", siteKey: "site", endpoints: ALL });
    client.signUp.email.mockReturnValueOnce(refused(403, "VERIFICATION_FAILED", "Captcha verification failed"));
    renderFresh(<SignUpForm onSignedUp={vi.fn()} signInHref="/sign-in/" />);
    await fillSignUp();
    await userEvent.click(await screen.findByRole("button", { name: "Turnstile: verify" }));
    await signUp();
    expect(client.signUp.email).toHaveBeenCalledOnce();
    expect(resets.turnstile).toHaveBeenCalledOnce();
    expect(screen.getByRole("alert")).toHaveTextContent("The check did not confirm you are a person.");

    // The used token is gone: no second request with it.
    await signUp();
    expect(screen.getByRole("alert")).toHaveTextContent("Complete the check above.");
    expect(client.signUp.email).toHaveBeenCalledOnce();

    // Any other refusal resets the widget too, and shows where it belongs.
    client.signUp.email.mockReturnValueOnce(refused(422, "USER_ALREADY_EXISTS", "User already exists"));
    await userEvent.click(screen.getByRole("button", { name: "Turnstile: verify" }));
    await signUp();
    expect(resets.turnstile).toHaveBeenCalledTimes(2);
    expect(screen.getByLabelText("Email")).toHaveAccessibleDescription("An account with this email already exists.");

    client.signUp.email.mockReturnValueOnce(refused(400, "MISSING_RESPONSE", "Missing CAPTCHA response"));
    await userEvent.click(screen.getByRole("button", { name: "Turnstile: verify" }));
    await signUp();
    expect(screen.getByRole("alert")).toHaveTextContent("Complete the check above, then try again.");
  });

  it("guards the forgot-password form with hCaptcha", async () => {
    serve({ provider: "hcaptcha", siteKey: "site", endpoints: ALL });
    client.requestPasswordReset.mockReturnValue(ok({ status: true }));
    renderFresh(<ForgotPasswordForm />);
    await userEvent.type(screen.getByLabelText("Email"), "ada@example.com");
    await userEvent.click(await screen.findByRole("button", { name: "hCaptcha: verify" }));
    await userEvent.click(screen.getByRole("button", { name: "Send the link" }));
    expect(client.requestPasswordReset).toHaveBeenCalledWith({
      email: "ada@example.com",
      redirectTo: "/reset-password/",
      fetchOptions: { headers: { "x-captcha-response": "tok-1" } },
    });
  });

  it("guards sign-in by email with reCAPTCHA, and by username only when the server lists it", async () => {
    serve({ provider: "google-recaptcha", siteKey: "site", endpoints: ALL });
    client.signIn.email.mockReturnValue(ok());
    client.signIn.username.mockReturnValue(ok());
    renderFresh(<SignInForm onSignedIn={vi.fn()} signUpHref="/sign-up/" />);
    await screen.findByRole("button", { name: "reCAPTCHA: verify" });

    // A username sign-in: not guarded here, so no token needed.
    await userEvent.type(screen.getByLabelText("Email or username"), "ada.l");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(client.signIn.username).toHaveBeenCalledWith({ username: "ada.l", password: "correct horse", rememberMe: true });

    await userEvent.clear(screen.getByLabelText("Email or username"));
    await userEvent.type(screen.getByLabelText("Email or username"), "ada@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Complete the check above.");
    expect(client.signIn.email).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole("button", { name: "reCAPTCHA: verify" }));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(client.signIn.email).toHaveBeenCalledWith({
      email: "ada@example.com",
      password: "correct horse",
      rememberMe: true,
      fetchOptions: { headers: { "x-captcha-response": "tok-1" } },
    });
  });

  it("wants a token for a username sign-in when the server lists /sign-in/username", async () => {
    serve({ provider: "cloudflare-turnstile", siteKey: "site", endpoints: ["/sign-in/username"] });
    client.signIn.username.mockReturnValue(ok());
    renderFresh(<SignInForm onSignedIn={vi.fn()} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada.l");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Complete the check above.");
    await userEvent.click(screen.getByRole("button", { name: "Turnstile: verify" }));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(client.signIn.username).toHaveBeenCalledWith(
      expect.objectContaining({ username: "ada.l", fetchOptions: { headers: { "x-captcha-response": "tok-1" } } }),
    );
  });

  it("reads the server's wildcard patterns: /sign-in/* guards a username sign-in too", async () => {
    serve({ provider: "cloudflare-turnstile", siteKey: "site", endpoints: ["/sign-in/*"] });
    client.signIn.username.mockReturnValue(ok());
    renderFresh(<SignInForm onSignedIn={vi.fn()} signUpHref="/sign-up/" />);
    await userEvent.type(screen.getByLabelText("Email or username"), "ada.l");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Complete the check above.");
    expect(client.signIn.username).not.toHaveBeenCalled();
  });
});

describe("the guarded-endpoint patterns", () => {
  it("match exactly, or with * for any run of characters, as the gateway does", () => {
    expect(coversEndpoint("/sign-in/email", "/sign-in/email")).toBe(true);
    expect(coversEndpoint("/sign-in/email", "/sign-in/email/x")).toBe(false);
    expect(coversEndpoint("/sign-in/*", "/sign-in/username")).toBe(true);
    expect(coversEndpoint("/sign-in/*", "/sign-up/email")).toBe(false);
    expect(coversEndpoint("/*/email", "/sign-up/email")).toBe(true);
    expect(coversEndpoint("/*/email", "/sign-up/username")).toBe(false);
    expect(coversEndpoint("*", "/anything")).toBe(true);
  });
});
