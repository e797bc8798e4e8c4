"use client";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe } from "@/lib/errors";
import { useT } from "@/lib/i18n/auth";
import { useQueryParam } from "@/lib/query";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";

/**
 * The page a reset link leads to: `?token=` to choose a new password, or `?error=` when the
 * link no longer works (used, replaced by a newer one, or expired).
 */
export function ResetPasswordForm() {
  const t = useT();
  const token = useQueryParam("token");
  const linkError = useQueryParam("error");
  const form = useForm({ newPassword: "", confirm: "" }, (values) => ({
    newPassword: rules.password,
    confirm: (v: string) => (v !== values.newPassword ? t("resetPassword.mismatch") : undefined),
  }));
  const [done, setDone] = useState(false);
  const [tokenRefused, setTokenRefused] = useState(false);

  const submit = form.onSubmit(
    async () => {
      const result = await authClient.resetPassword({ newPassword: form.values.newPassword, token: token ?? "" });
      if (result.error?.code === "INVALID_TOKEN") setTokenRefused(true);
      return result;
    },
    () => setDone(true),
  );

  if (token === undefined) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">{t("resetPassword.loading")}</span>
      </div>
    );
  }
  if (done) {
    return (
      <section className="card form" aria-labelledby="reset-title">
        <h1 id="reset-title">{t("resetPassword.doneTitle")}</h1>
        <p role="status">{t("resetPassword.doneBody")}</p>
        <Link className="button button-primary" href="/sign-in/">
          {t("resetPassword.signIn")}
        </Link>
      </section>
    );
  }
  if (!token || linkError || tokenRefused) {
    return (
      <section className="card form" aria-labelledby="reset-title">
        <h1 id="reset-title">{t("resetPassword.linkFailedTitle")}</h1>
        <p role="alert">{describe({ status: 400, code: linkError ?? "INVALID_TOKEN" })}</p>
        <Link className="button button-primary" href="/forgot-password/">
          {t("resetPassword.sendNewLink")}
        </Link>
      </section>
    );
  }
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="reset-title">
      <h1 id="reset-title">{t("resetPassword.title")}</h1>
      <FormAlert message={form.notice?.text} />
      <Field
        label={t("resetPassword.newPassword")}
        type="password"
        autoComplete="new-password"
        required
        hint={t("resetPassword.passwordHint", { min: rules.PASSWORD_MIN, max: rules.PASSWORD_MAX })}
        {...form.field("newPassword")}
      />
      <Field label={t("resetPassword.confirm")} type="password" autoComplete="new-password" required {...form.field("confirm")} onBlur={undefined} />
      <Button type="submit" busy={form.busy} busyLabel={t("resetPassword.submitting")}>
        {t("resetPassword.submit")}
      </Button>
    </form>
  );
}
