"use client";
import { lazy, Suspense } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/account";
import { sixDigitCode } from "@/lib/rules";
import { refreshSession } from "@/lib/session";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";

// Loaded only when someone sets an app up, so no other page carries the QR encoder.
const QRCodeSVG = lazy(() => import("qrcode.react").then((m) => ({ default: m.QRCodeSVG })));

/** The URI's secret in groups of four, easier to type into an app by hand. */
export function setupKey(totpURI: string): string {
  const secret = new URL(totpURI).searchParams.get("secret") ?? "";
  return secret.match(/.{1,4}/g)?.join(" ") ?? "";
}

/**
 * Adding Gatehouse to an authenticator app: its QR code (drawn here, the secret never leaves
 * the browser), the same key as text, and a first code from the app, which turns the second
 * factor on.
 */
export function TotpSetup({ totpURI, onConfirmed, onCancel }: { totpURI: string; onConfirmed: () => void; onCancel: () => void }) {
  const t = useT();
  const form = useForm({ code: "" }, { code: sixDigitCode });
  const submit = form.onSubmit(
    () => authClient.twoFactor.verifyTotp({ code: form.values.code.replace(/\s+/g, "") }),
    async () => {
      await refreshSession();
      onConfirmed();
    },
  );

  return (
    <form method="post" className="form totp-setup" onSubmit={(e) => void submit(e)} noValidate aria-label={t("totp.formLabel")}>
      <p>{t("totp.scan")}</p>
      <div className="qr">
        <Suspense fallback={<div className="qr-placeholder" aria-busy="true" />}>
          <QRCodeSVG value={totpURI} size={192} marginSize={4} bgColor="#ffffff" fgColor="#000000" role="img" aria-label={t("totp.qrLabel")} data-testid="totp-qr" />
        </Suspense>
      </div>
      <p className="muted">
        {t("totp.cannotScan")}
        <br />
        <code className="setup-key" data-testid="totp-secret">
          {setupKey(totpURI)}
        </code>
      </p>
      <p>{t("totp.enterCode")}</p>
      <FormAlert message={form.notice?.text} />
      <Field label={t("totp.code")} inputMode="numeric" autoComplete="one-time-code" required {...form.field("code")} onBlur={undefined} />
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel={t("totp.checking")}>
          {t("totp.confirm")}
        </Button>
        <Button tone="secondary" busy={false} onClick={onCancel}>
          {t("totp.cancel")}
        </Button>
      </div>
    </form>
  );
}
