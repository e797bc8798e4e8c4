"use client";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/auth";
import { rich } from "@/lib/i18n/rich";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { CaptchaWidget, useCaptcha } from "./CaptchaWidget";

/** Where the mailed link leads: the page that takes the new password. */
export const RESET_PAGE = "/reset-password/";

/**
 * Asks for a reset link. The answer is the same whether or not the address has an account,
 * so the page says so rather than confirming it.
 */
export function ForgotPasswordForm() {
  const t = useT();
  const form = useForm({ email: "" }, { email: rules.email });
  const [sentTo, setSentTo] = useState<string>();
  const captcha = useCaptcha(["/request-password-reset"]);

  const submit = form.onSubmit(
    () => authClient.requestPasswordReset({ email: form.values.email.trim(), redirectTo: RESET_PAGE, ...captcha.fetchOptions }),
    () => setSentTo(form.values.email.trim()),
    captcha.guard,
  );

  if (sentTo) {
    return (
      <section className="card form" aria-labelledby="forgot-title">
        <h1 id="forgot-title">{t("forgotPassword.checkEmailTitle")}</h1>
        <p role="status">
          {rich(t("forgotPassword.sentBody", { email: sentTo }), { strong: (text) => <strong>{text}</strong> })}
        </p>
        <p className="form-footer">
          <Link href="/sign-in/">{t("forgotPassword.backToSignIn")}</Link>
        </p>
      </section>
    );
  }
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="forgot-title">
      <h1 id="forgot-title">{t("forgotPassword.title")}</h1>
      <p className="muted">{t("forgotPassword.intro")}</p>
      <FormAlert message={form.notice?.text} />
      <Field label={t("forgotPassword.email")} type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} required {...form.field("email")} />
      <CaptchaWidget widget={captcha.widget} />
      <Button type="submit" busy={form.busy} disabled={captcha.pending} busyLabel={t("forgotPassword.submitting")}>
        {t("forgotPassword.submit")}
      </Button>
      <p className="form-footer">
        {rich(t("forgotPassword.remembered"), { link: (text) => <Link href="/sign-in/">{text}</Link> })}
      </p>
    </form>
  );
}
