"use client";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe } from "@/lib/errors";
import { useT } from "@/lib/i18n/auth";
import { rich } from "@/lib/i18n/rich";
import { useQueryParam } from "@/lib/query";
import * as rules from "@/lib/rules";
import { useSession } from "@/lib/session";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";

/** Where verification links lead (their `callbackURL`); `?change=1` for a change of address. */
export const VERIFY_PAGE = "/verify-email/";
export const CHANGE_EMAIL_PAGE = "/verify-email/?change=1";

/**
 * Where a verification link leads: success, or the reason it failed (`?error=`) with a way to
 * get a new link.
 */
export function VerifyEmailLanding() {
  const t = useT();
  const error = useQueryParam("error");
  const change = useQueryParam("change");
  const { data: session } = useSession();

  if (error === undefined) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">{t("verifyEmail.loading")}</span>
      </div>
    );
  }
  if (error) {
    return (
      <section className="card form" aria-labelledby="verify-title">
        <h1 id="verify-title">{t("verifyEmail.linkFailedTitle")}</h1>
        <p role="alert">{describe({ status: 400, code: error })}</p>
        {error === "INVALID_USER" ? null : <Resend email={session?.user.email} />}
      </section>
    );
  }
  return (
    <section className="card form" aria-labelledby="verify-title">
      <h1 id="verify-title">{change ? t("verifyEmail.changeTitle") : t("verifyEmail.verifiedTitle")}</h1>
      {change ? (
        <p role="status">{t("verifyEmail.changeBody")}</p>
      ) : (
        <p role="status">{t("verifyEmail.verifiedBody")}</p>
      )}
      {session ? (
        <p className="muted">
          {rich(t(session.user.emailVerified ? "verifyEmail.addressVerified" : "verifyEmail.addressNotVerified", { email: session.user.email }), {
            strong: (text) => <strong>{text}</strong>,
          })}
        </p>
      ) : null}
      <Link className="button button-primary" href={session ? "/account/" : "/sign-in/"}>
        {session ? t("verifyEmail.goToAccount") : t("verifyEmail.signIn")}
      </Link>
    </section>
  );
}

/** A new verification link: for the signed-in user's address, else for the one typed. */
function Resend({ email }: { email: string | undefined }) {
  const t = useT();
  const form = useForm({ email: "" }, email ? {} : { email: rules.email });
  const [sent, setSent] = useState(false);
  const submit = form.onSubmit(
    () => authClient.sendVerificationEmail({ email: email ?? form.values.email.trim(), callbackURL: VERIFY_PAGE }),
    () => setSent(true),
  );
  if (sent) {
    return (
      <p role="status" className="alert alert-success">
        {t("verifyEmail.resendSent")}
      </p>
    );
  }
  return (
    <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-label={t("verifyEmail.resendLabel")}>
      <FormAlert message={form.notice?.text} />
      {email ? null : (
        <Field label={t("verifyEmail.resendEmail")} type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} required {...form.field("email")} />
      )}
      <Button type="submit" busy={form.busy} busyLabel={t("verifyEmail.resendSubmitting")}>
        {t("verifyEmail.resendSubmit")}
      </Button>
    </form>
  );
}
