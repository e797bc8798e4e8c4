"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { currentTag } from "@/lib/i18n";
import { codeOfTag } from "@/lib/i18n/languages";
import { t, useT } from "@/lib/i18n/auth";
import { rich } from "@/lib/i18n/rich";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { rememberVerificationSent } from "@/lib/verification-sent";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { CaptchaWidget, useCaptcha } from "./CaptchaWidget";
import { VERIFY_PAGE } from "./VerifyEmailLanding";

const checks = {
  name: rules.required(() => t("signUp.nameRequired")),
  email: rules.email,
  password: rules.password,
  username: rules.username,
};

/**
 * Name, email, password and an optional username, each checked as the user leaves it. From an
 * invitation, `invitedEmail` is filled in and read-only (the invitation is for that address),
 * until the user chooses another.
 */
export function SignUpForm({
  onSignedUp,
  signInHref,
  invitedEmail,
}: {
  onSignedUp: () => void | Promise<void>;
  signInHref: string;
  invitedEmail?: string | undefined;
}) {
  const t = useT();
  const form = useForm({ name: "", email: invitedEmail ?? "", password: "", username: "" }, checks);
  const [verifyFirst, setVerifyFirst] = useState<string>();
  const [locked, setLocked] = useState(Boolean(invitedEmail));
  const captcha = useCaptcha(["/sign-up/email"]);
  const { setValues, focus } = form;
  // The page reads the address after mount (it is static): taken whenever it arrives.
  useEffect(() => {
    if (!invitedEmail) return;
    setValues((values) => ({ ...values, email: invitedEmail }));
    setLocked(true);
  }, [invitedEmail, setValues]);

  const unlock = () => {
    setLocked(false);
    // The button goes with the hint: the field it freed takes focus.
    focus("email");
  };

  const submit = form.onSubmit(
    () => {
      const { name, email, password } = form.values;
      const username = form.values.username.trim();
      return authClient.signUp.email({
        name: name.trim(),
        email: email.trim(),
        password,
        // The plugin stores the username lowercased and keeps the form typed as the display name.
        ...(username ? { username, displayUsername: username } : {}),
        callbackURL: VERIFY_PAGE,
        // The language the app speaks now: the user's mails (and the app, next time) speak it.
        language: codeOfTag(currentTag()),
        ...captcha.fetchOptions,
      });
    },
    async (data) => {
      // No session yet: this deployment wants the address verified first.
      if (data?.token === null) {
        setVerifyFirst(form.values.email.trim());
        return;
      }
      // Signed in, and a link on its way: the verify-email banner says so.
      if (data && "verificationEmailSent" in data && data.verificationEmailSent === true) rememberVerificationSent(form.values.email.trim());
      await onSignedUp();
    },
    captcha.guard,
  );

  if (verifyFirst) {
    return (
      <section className="card form" aria-labelledby="sign-up-title">
        <h1 id="sign-up-title">{t("signUp.checkEmailTitle")}</h1>
        <p role="status">
          {rich(t("signUp.checkEmailBody", { email: verifyFirst }), { strong: (text) => <strong>{text}</strong> })}
        </p>
        <p className="form-footer">
          <Link href={signInHref}>{t("signUp.signIn")}</Link>
        </p>
      </section>
    );
  }

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="sign-up-title">
      <h1 id="sign-up-title">{t("signUp.title")}</h1>
      <FormAlert message={form.notice?.text} />
      <Field label={t("signUp.name")} autoComplete="name" required {...form.field("name")} />
      <Field
        label={t("signUp.email")}
        type="email"
        autoComplete="email"
        autoCapitalize="none"
        spellCheck={false}
        required
        readOnly={locked}
        hint={
          locked
            ? rich(t("signUp.invitedEmailHint"), {
                unlock: (text) => (
                  <button type="button" className="link-button" onClick={unlock}>
                    {text}
                  </button>
                ),
              })
            : undefined
        }
        {...form.field("email")}
      />
      <Field
        label={t("signUp.password")}
        type="password"
        autoComplete="new-password"
        required
        hint={t("signUp.passwordHint", { min: rules.PASSWORD_MIN, max: rules.PASSWORD_MAX })}
        {...form.field("password")}
      />
      <Field
        label={t("signUp.username")}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        hint={t("signUp.usernameHint", { min: rules.USERNAME_MIN, max: rules.USERNAME_MAX })}
        {...form.field("username")}
      />
      <CaptchaWidget widget={captcha.widget} />
      <Button type="submit" busy={form.busy} disabled={captcha.pending} busyLabel={t("signUp.submitting")}>
        {t("signUp.submit")}
      </Button>
      <p className="form-footer">
        {rich(t("signUp.haveAccount"), { link: (text) => <Link href={signInHref}>{text}</Link> })}
      </p>
    </form>
  );
}
