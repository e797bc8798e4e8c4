"use client";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe } from "@/lib/errors";
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
  const token = useQueryParam("token");
  const linkError = useQueryParam("error");
  const form = useForm({ newPassword: "", confirm: "" }, (values) => ({
    newPassword: rules.password,
    confirm: (v: string) => (v !== values.newPassword ? "The two passwords differ." : undefined),
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
        <span className="visually-hidden">Loading…</span>
      </div>
    );
  }
  if (done) {
    return (
      <section className="card form" aria-labelledby="reset-title">
        <h1 id="reset-title">Password changed</h1>
        <p role="status">Your new password is set. Sign in with it.</p>
        <Link className="button button-primary" href="/sign-in/">
          Sign in
        </Link>
      </section>
    );
  }
  if (!token || linkError || tokenRefused) {
    return (
      <section className="card form" aria-labelledby="reset-title">
        <h1 id="reset-title">This link does not work</h1>
        <p role="alert">{describe({ status: 400, code: linkError ?? "INVALID_TOKEN" })}</p>
        <Link className="button button-primary" href="/forgot-password/">
          Send a new link
        </Link>
      </section>
    );
  }
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      <FormAlert message={form.notice?.text} />
      <Field
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        hint={`${rules.PASSWORD_MIN} to ${rules.PASSWORD_MAX} characters.`}
        {...form.field("newPassword")}
      />
      <Field label="Repeat the new password" type="password" autoComplete="new-password" required {...form.field("confirm")} onBlur={undefined} />
      <Button type="submit" busy={form.busy} busyLabel="Saving…">
        Set the new password
      </Button>
    </form>
  );
}
