"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { t, useT } from "@/lib/i18n/admin";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Dialog } from "../Dialog";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { Button } from "../Button";
import { refreshUsers } from "./hooks";

const checks = { name: rules.required(() => t("create.nameRequired")), email: rules.email, password: rules.password };
const empty = { name: "", email: "", password: "" };

export function CreateUserDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useT();
  const form = useForm(empty, checks);
  const [role, setRole] = useState("user");
  const close = () => {
    form.reset();
    form.setNotice(undefined);
    onClose();
  };

  const submit = form.onSubmit(
    () =>
      authClient.admin.createUser({
        name: form.values.name.trim(),
        email: form.values.email.trim(),
        password: form.values.password,
        role: role === "admin" ? "admin" : "user",
      }),
    async () => {
      await refreshUsers();
      close();
    },
  );

  return (
    <Dialog open={open} title={t("create.title")} onClose={close}>
      <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate>
        <FormAlert message={form.notice?.text} />
        <Field label={t("create.name")} required {...form.field("name")} onBlur={undefined} />
        <Field label={t("create.email")} type="email" autoComplete="off" required {...form.field("email")} onBlur={undefined} />
        <Field
          label={t("create.password")}
          type="password"
          autoComplete="new-password"
          hint={t("create.passwordHint", { min: rules.PASSWORD_MIN, max: rules.PASSWORD_MAX })}
          required
          {...form.field("password")}
          onBlur={undefined}
        />
        <div className="field">
          <label htmlFor="create-role">{t("create.role")}</label>
          <select id="create-role" value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="user">{t("role.user")}</option>
            <option value="admin">{t("role.admin")}</option>
          </select>
        </div>
        <div className="actions">
          <Button type="submit" busy={form.busy} busyLabel={t("create.creating")}>
            {t("create.submit")}
          </Button>
          <button type="button" className="button button-secondary" onClick={close}>
            {t("create.cancel")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
