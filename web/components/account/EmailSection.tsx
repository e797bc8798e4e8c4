"use client";
import { useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import * as rules from "@/lib/rules";
import { refreshSession } from "@/lib/session";
import { useForm } from "@/lib/useForm";
import { CHANGE_EMAIL_PAGE, VERIFY_PAGE } from "../auth/VerifyEmailLanding";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";

/**
 * The address: whether it is verified (with a new link on request), and changing it. A change
 * of an unverified address applies at once; a verified one must approve it from its inbox
 * first, which the section explains while it waits.
 */
export function EmailSection({ session }: { session: SessionData }) {
  const user = session.user;
  const [verifyNotice, setVerifyNotice] = useState<{ tone: "error" | "success"; text: string }>();
  const [sending, setSending] = useState(false);
  const form = useForm({ newEmail: "" }, { newEmail: rules.email });

  const sendLink = async () => {
    setSending(true);
    const { error } = await settle(authClient.sendVerificationEmail({ email: user.email, callbackURL: VERIFY_PAGE }));
    setSending(false);
    setVerifyNotice(
      error
        ? { tone: "error", text: describe(error) }
        : { tone: "success", text: `We sent a link to ${user.email}. It works for an hour.` },
    );
  };

  const submit = form.onSubmit(
    () => authClient.changeEmail({ newEmail: form.values.newEmail.trim(), callbackURL: CHANGE_EMAIL_PAGE }),
    async () => {
      const wanted = form.values.newEmail.trim().toLowerCase();
      const now = await refreshSession();
      form.reset();
      form.setNotice({
        tone: "success",
        text:
          now?.user.email === wanted
            ? `Your address is now ${wanted}. We sent a link there to verify it.`
            : `To make sure it is you, we sent a link to ${user.email}. Open it to approve the change; we will then send a link to ${wanted} to finish it. Until then your address stays ${user.email}.`,
      });
    },
  );

  return (
    <section className="card form" aria-labelledby="email-title">
      <h2 id="email-title">Email address</h2>
      <p>
        <strong>{user.email}</strong>{" "}
        {user.emailVerified ? <span className="badge">Verified</span> : <span className="badge badge-danger">Not verified</span>}
      </p>
      {user.emailVerified ? null : (
        <div className="actions">
          <Button tone="secondary" busy={sending} busyLabel="Sending…" onClick={() => void sendLink()}>
            Send a verification link
          </Button>
        </div>
      )}
      <FormAlert message={verifyNotice?.text} tone={verifyNotice?.tone} />
      <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="change-email-title">
        <h3 id="change-email-title">Change your email address</h3>
        <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
        <Field
          label="New email address"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          required
          hint={user.emailVerified ? "We will first ask your current address to approve the change." : undefined}
          {...form.field("newEmail")}
        />
        <Button type="submit" tone="secondary" busy={form.busy} busyLabel="Changing…">
          Change email address
        </Button>
      </form>
    </section>
  );
}
