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
import { VERIFY_PAGE } from "./VerifyEmailLanding";

const checks = {
  name: rules.required("your name"),
  email: rules.email,
  password: rules.password,
  username: rules.username,
};

/** Name, email, password and an optional username, each checked as the user leaves it. */
export function SignUpForm({ onSignedUp, signInHref }: { onSignedUp: () => void | Promise<void>; signInHref: string }) {
  const form = useForm({ name: "", email: "", password: "", username: "" }, checks);
  const [verifyFirst, setVerifyFirst] = useState<string>();
  const captcha = useCaptcha(["/sign-up/email"]);

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
        ...captcha.fetchOptions,
      });
    },
    async (data) => {
      // No session yet: this deployment wants the address verified first.
      if (data?.token === null) {
        setVerifyFirst(form.values.email.trim());
        return;
      }
      await onSignedUp();
    },
    captcha.guard,
  );

  if (verifyFirst) {
    return (
      <section className="card form" aria-labelledby="sign-up-title">
        <h1 id="sign-up-title">Check your email</h1>
        <p role="status">
          We sent a link to <strong>{verifyFirst}</strong>. Open it to verify your address, then sign in.
        </p>
        <p className="form-footer">
          <Link href={signInHref}>Sign in</Link>
        </p>
      </section>
    );
  }

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="sign-up-title">
      <h1 id="sign-up-title">Create your account</h1>
      <FormAlert message={form.notice?.text} />
      <Field label="Name" autoComplete="name" required {...form.field("name")} />
      <Field label="Email" type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} required {...form.field("email")} />
      <Field
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        hint={`${rules.PASSWORD_MIN} to ${rules.PASSWORD_MAX} characters.`}
        {...form.field("password")}
      />
      <Field
        label="Username (optional)"
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        hint={`${rules.USERNAME_MIN} to ${rules.USERNAME_MAX} letters, digits, underscores or dots. You can sign in with it.`}
        {...form.field("username")}
      />
      <CaptchaWidget widget={captcha.widget} />
      <Button type="submit" busy={form.busy} disabled={captcha.pending} busyLabel="Creating your account…">
        Create account
      </Button>
      <p className="form-footer">
        Already have an account? <Link href={signInHref}>Sign in</Link>
      </p>
    </form>
  );
}
