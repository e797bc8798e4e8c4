"use client";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
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
        <h1 id="forgot-title">Check your email</h1>
        <p role="status">
          If <strong>{sentTo}</strong> belongs to an account, a link to choose a new password is on its way. It works
          for an hour, and only the newest link works.
        </p>
        <p className="form-footer">
          <Link href="/sign-in/">Back to sign in</Link>
        </p>
      </section>
    );
  }
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="forgot-title">
      <h1 id="forgot-title">Forgot your password?</h1>
      <p className="muted">Enter your account&apos;s email address and we will mail you a link to choose a new password.</p>
      <FormAlert message={form.notice?.text} />
      <Field label="Email" type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} required {...form.field("email")} />
      <CaptchaWidget widget={captcha.widget} />
      <Button type="submit" busy={form.busy} disabled={captcha.pending} busyLabel="Sending…">
        Send the link
      </Button>
      <p className="form-footer">
        Remembered it? <Link href="/sign-in/">Sign in</Link>
      </p>
    </form>
  );
}
