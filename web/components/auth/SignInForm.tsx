"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { t, useT } from "@/lib/i18n/auth";
import { rich } from "@/lib/i18n/rich";
import { required } from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { CaptchaWidget, useCaptcha } from "./CaptchaWidget";

const checks = {
  identifier: required(() => t("signIn.identifierRequired")),
  password: required(() => t("signIn.passwordRequired")),
};
/** The two endpoints the form posts to: an `@` in the identifier picks the first. */
const ENDPOINTS = ["/sign-in/email", "/sign-in/username"] as const;

/** The answer for an account with a second factor: no session yet (the client plugin moves on). */
const needsSecondFactor = (data: unknown) =>
  typeof data === "object" && data !== null && "twoFactorRedirect" in data && data.twoFactorRedirect === true;

/** Sign in with an email address or a username (an `@` tells which), with remember-me. */
export function SignInForm({ onSignedIn, signUpHref }: { onSignedIn: () => void | Promise<void>; signUpHref: string }) {
  const t = useT();
  const form = useForm({ identifier: "", password: "" }, checks);
  const [rememberMe, setRememberMe] = useState(true);
  // Set while the browser loads the two-factor page, so the form is not sent twice; cleared
  // when Back brings this page back from the browser's cache.
  const [leaving, setLeaving] = useState(false);
  useEffect(() => {
    const back = (e: PageTransitionEvent) => e.persisted && setLeaving(false);
    window.addEventListener("pageshow", back);
    return () => window.removeEventListener("pageshow", back);
  }, []);
  const byEmail = form.values.identifier.includes("@");
  const captcha = useCaptcha(ENDPOINTS, ENDPOINTS[byEmail ? 0 : 1]);

  const submit = form.onSubmit(
    () => {
      const identifier = form.values.identifier.trim();
      const password = form.values.password;
      return byEmail
        ? authClient.signIn.email({ email: identifier, password, rememberMe, ...captcha.fetchOptions })
        : authClient.signIn.username({ username: identifier, password, rememberMe, ...captcha.fetchOptions });
    },
    (data) => (needsSecondFactor(data) ? setLeaving(true) : onSignedIn()),
    captcha.guard,
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{t("signIn.title")}</h1>
      <FormAlert message={form.notice?.text} />
      <Field label={t("signIn.identifier")} autoComplete="username" autoCapitalize="none" spellCheck={false} required {...form.field("identifier")} />
      <Field label={t("signIn.password")} type="password" autoComplete="current-password" required {...form.field("password")} onBlur={undefined} />
      <div className="checkbox">
        <input id="remember-me" type="checkbox" checked={rememberMe} onChange={(e) => setRememberMe(e.target.checked)} />
        <label htmlFor="remember-me">{t("signIn.rememberMe")}</label>
      </div>
      <CaptchaWidget widget={captcha.widget} />
      <Button type="submit" busy={form.busy || leaving} disabled={captcha.pending} busyLabel={t("signIn.submitting")}>
        {t("signIn.submit")}
      </Button>
      <p className="form-footer">
        <Link href="/forgot-password/">{t("signIn.forgotPassword")}</Link>
      </p>
      <p className="form-footer">
        {rich(t("signIn.newHere"), { link: (text) => <Link href={signUpHref}>{text}</Link> })}
      </p>
    </form>
  );
}
