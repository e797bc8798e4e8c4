"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/account";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { refreshSessions } from "./hooks";

const empty = { currentPassword: "", newPassword: "", confirm: "" };

/** Current password, new password twice, and whether to sign out everywhere else. */
export function ChangePasswordForm({ userId }: { userId: string }) {
  const t = useT();
  const form = useForm(empty, (values) => ({
    currentPassword: rules.required(() => t("password.currentRequired")),
    newPassword: rules.password,
    confirm: (v: string) => (v !== values.newPassword ? t("password.differ") : undefined),
  }));
  const [revokeOthers, setRevokeOthers] = useState(true);

  const submit = form.onSubmit(
    () =>
      authClient.changePassword({
        currentPassword: form.values.currentPassword,
        newPassword: form.values.newPassword,
        revokeOtherSessions: revokeOthers,
      }),
    async () => {
      form.reset();
      form.setNotice({
        tone: "success",
        text: revokeOthers ? t("password.changedOthersSignedOut") : t("password.changed"),
      });
      await refreshSessions(userId);
    },
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="password-title">
      <h2 id="password-title">{t("password.title")}</h2>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field label={t("password.current")} type="password" autoComplete="current-password" required {...form.field("currentPassword")} onBlur={undefined} />
      <Field
        label={t("password.new")}
        type="password"
        autoComplete="new-password"
        required
        hint={t("password.newHint", { min: rules.PASSWORD_MIN, max: rules.PASSWORD_MAX })}
        {...form.field("newPassword")}
      />
      <Field label={t("password.repeat")} type="password" autoComplete="new-password" required {...form.field("confirm")} onBlur={undefined} />
      <div className="checkbox">
        <input id="revoke-others" type="checkbox" checked={revokeOthers} onChange={(e) => setRevokeOthers(e.target.checked)} />
        <label htmlFor="revoke-others">{t("password.signOutOthers")}</label>
      </div>
      <Button type="submit" busy={form.busy} busyLabel={t("password.changing")}>
        {t("password.submit")}
      </Button>
    </form>
  );
}
