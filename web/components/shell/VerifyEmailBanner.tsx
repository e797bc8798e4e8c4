"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/common";
import { rich } from "@/lib/i18n/rich";
import { wasVerificationSent } from "@/lib/verification-sent";

/** The page a verification link lands on. */
const VERIFY_PAGE = "/verify-email/";

/**
 * Until the signed-in user's address is verified: a banner that says so on every page, with a
 * button that mails a new link (the first may be lost, or was never asked for). Right after a
 * sign-up that mailed one, it says so and offers to send it again.
 */
export function VerifyEmailBanner({ email }: { email: string }) {
  const t = useT();
  const [state, setState] = useState<"idle" | "sending" | "sent">(() => (wasVerificationSent(email) ? "sent" : "idle"));
  // Once a link went, the banner keeps saying so while another is on its way.
  const [sentOnce, setSentOnce] = useState(state === "sent");
  const [error, setError] = useState<string>();

  async function send() {
    if (state === "sending") return;
    setState("sending");
    setError(undefined);
    const { error } = await settle(authClient.sendVerificationEmail({ email, callbackURL: VERIFY_PAGE }));
    if (error) {
      setState("idle");
      setError(describe(error));
      return;
    }
    setState("sent");
    setSentOnce(true);
  }

  const strong = { strong: (text: string) => <strong>{text}</strong> };
  return (
    <div className="banner banner-info banner-bottom" role="region" aria-label={t("verify.region")}>
      <p role="status">
        {sentOnce ? rich(t("verify.sent", { email }), strong) : rich(t("verify.notVerified", { email }), strong)}
      </p>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => void send()}
        aria-disabled={state === "sending" || undefined}
        aria-busy={state === "sending" || undefined}
      >
        {state === "sending" ? t("verify.sending") : sentOnce ? t("verify.sendAgain") : t("verify.send")}
      </button>
      {error ? <p role="alert">{error}</p> : null}
    </div>
  );
}
