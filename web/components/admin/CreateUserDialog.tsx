"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Dialog } from "../Dialog";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { Button } from "../Button";
import { refreshUsers } from "./hooks";

const checks = { name: rules.required("a name"), email: rules.email, password: rules.password };
const empty = { name: "", email: "", password: "" };

export function CreateUserDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
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
    <Dialog open={open} title="Create user" onClose={close}>
      <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate>
        <FormAlert message={form.notice?.text} />
        <Field label="Name" required {...form.field("name")} onBlur={undefined} />
        <Field label="Email" type="email" autoComplete="off" required {...form.field("email")} onBlur={undefined} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          hint={`${rules.PASSWORD_MIN} to ${rules.PASSWORD_MAX} characters.`}
          required
          {...form.field("password")}
          onBlur={undefined}
        />
        <div className="field">
          <label htmlFor="create-role">Role</label>
          <select id="create-role" value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="user">User</option>
            <option value="admin">Admin</option>
          </select>
        </div>
        <div className="actions">
          <Button type="submit" busy={form.busy} busyLabel="Creating…">
            Create user
          </Button>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
