"use client";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe } from "@/lib/errors";
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
  const error = useQueryParam("error");
  const change = useQueryParam("change");
  const { data: session } = useSession();

  if (error === undefined) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">Loading…</span>
      </div>
    );
  }
  if (error) {
    return (
      <section className="card form" aria-labelledby="verify-title">
        <h1 id="verify-title">This link does not work</h1>
        <p role="alert">{describe({ status: 400, code: error })}</p>
        {error === "INVALID_USER" ? null : <Resend email={session?.user.email} />}
      </section>
    );
  }
  return (
    <section className="card form" aria-labelledby="verify-title">
      <h1 id="verify-title">{change ? "Change of email address" : "Email address verified"}</h1>
      {change ? (
        <p role="status">
          If this was the approval from your current address, we have sent a link to the new address: open it to
          finish. If it was the link sent to the new address, the change is done.
        </p>
      ) : (
        <p role="status">Thank you: your email address is verified.</p>
      )}
      {session ? (
        <p className="muted">
          Your account&apos;s address: <strong>{session.user.email}</strong>
          {session.user.emailVerified ? " (verified)" : " (not verified yet)"}
        </p>
      ) : null}
      <Link className="button button-primary" href={session ? "/account/" : "/sign-in/"}>
        {session ? "Go to your account" : "Sign in"}
      </Link>
    </section>
  );
}

/** A new verification link: for the signed-in user's address, else for the one typed. */
function Resend({ email }: { email: string | undefined }) {
  const form = useForm({ email: "" }, email ? {} : { email: rules.email });
  const [sent, setSent] = useState(false);
  const submit = form.onSubmit(
    () => authClient.sendVerificationEmail({ email: email ?? form.values.email.trim(), callbackURL: VERIFY_PAGE }),
    () => setSent(true),
  );
  if (sent) {
    return (
      <p role="status" className="alert alert-success">
        If the address needs verifying, a new link is on its way. It works for an hour.
      </p>
    );
  }
  return (
    <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-label="Send a new verification link">
      <FormAlert message={form.notice?.text} />
      {email ? null : (
        <Field label="Email" type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} required {...form.field("email")} />
      )}
      <Button type="submit" busy={form.busy} busyLabel="Sending…">
        Send a new link
      </Button>
    </form>
  );
}
