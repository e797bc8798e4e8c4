"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { refreshSessions } from "./hooks";

const empty = { currentPassword: "", newPassword: "", confirm: "" };

/** Current password, new password twice, and whether to sign out everywhere else. */
export function ChangePasswordForm({ userId }: { userId: string }) {
  const form = useForm(empty, (values) => ({
    currentPassword: rules.required("your current password"),
    newPassword: rules.password,
    confirm: (v: string) => (v !== values.newPassword ? "The two new passwords differ." : undefined),
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
        text: revokeOthers ? "Password changed. Your other sessions were signed out." : "Password changed.",
      });
      await refreshSessions(userId);
    },
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field label="Current password" type="password" autoComplete="current-password" required {...form.field("currentPassword")} onBlur={undefined} />
      <Field
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        hint={`${rules.PASSWORD_MIN} to ${rules.PASSWORD_MAX} characters.`}
        {...form.field("newPassword")}
      />
      <Field label="Repeat the new password" type="password" autoComplete="new-password" required {...form.field("confirm")} onBlur={undefined} />
      <div className="checkbox">
        <input id="revoke-others" type="checkbox" checked={revokeOthers} onChange={(e) => setRevokeOthers(e.target.checked)} />
        <label htmlFor="revoke-others">Sign out of all other sessions</label>
      </div>
      <Button type="submit" busy={form.busy} busyLabel="Changing…">
        Change password
      </Button>
    </form>
  );
}
