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
  // Once a link went, the banner keeps saying so, while another is on its way too.
  const [sent, setSent] = useState(() => wasVerificationSent(email));
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string>();

  async function send() {
    if (sending) return;
    setSending(true);
    setError(undefined);
    const { error } = await settle(authClient.sendVerificationEmail({ email, callbackURL: VERIFY_PAGE }));
    setSending(false);
    if (error) setError(describe(error));
    else setSent(true);
  }

  const strong = { strong: (text: string) => <strong>{text}</strong> };
  return (
    <div className="banner banner-info banner-bottom" role="region" aria-label={t("verify.region")}>
      <p role="status">
        {sent ? rich(t("verify.sent", { email }), strong) : rich(t("verify.notVerified", { email }), strong)}
      </p>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => void send()}
        aria-disabled={sending || undefined}
        aria-busy={sending || undefined}
      >
        {sending ? t("verify.sending") : sent ? t("verify.sendAgain") : t("verify.send")}
      </button>
      {error ? <p role="alert">{error}</p> : null}
    </div>
  );
}
