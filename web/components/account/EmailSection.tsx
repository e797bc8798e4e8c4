"use client";
import { useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/account";
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
  const t = useT();
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
        : { tone: "success", text: t("email.linkSent", { email: user.email }) },
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
            ? t("email.changed", { email: wanted })
            : t("email.approvalSent", { current: user.email, wanted }),
      });
    },
  );

  return (
    <section className="card form" aria-labelledby="email-title">
      <h2 id="email-title">{t("email.title")}</h2>
      <p>
        <strong>{user.email}</strong>{" "}
        {user.emailVerified ? <span className="badge">{t("email.verified")}</span> : <span className="badge badge-danger">{t("email.notVerified")}</span>}
      </p>
      {user.emailVerified ? null : (
        <div className="actions">
          <Button tone="secondary" busy={sending} busyLabel={t("email.sending")} onClick={() => void sendLink()}>
            {t("email.sendLink")}
          </Button>
        </div>
      )}
      <FormAlert message={verifyNotice?.text} tone={verifyNotice?.tone} />
      <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="change-email-title">
        <h3 id="change-email-title">{t("email.changeTitle")}</h3>
        <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
        <Field
          label={t("email.newAddress")}
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          required
          hint={user.emailVerified ? t("email.newAddressHint") : undefined}
          {...form.field("newEmail")}
        />
        <Button type="submit" tone="secondary" busy={form.busy} busyLabel={t("email.changing")}>
          {t("email.submit")}
        </Button>
      </form>
    </section>
  );
}
