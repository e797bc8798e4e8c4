"use client";
import { authClient } from "@/lib/auth-client";
import { t, useT } from "@/lib/i18n/organization";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { SelectField } from "../SelectField";
import { refreshOrganizations } from "./hooks";
import { ROLE_OPTIONS, roleLabel, type Abilities, type RoleName } from "./roles";
import type { FullOrganization } from "./types";

const NO_TEAM = "";
const checks = { email: (value: string) => (value.trim() === "" ? t("invite.emailRequired") : rules.email(value)) };

/** Invite someone by email, with a role (an owner only from an owner) and, optionally, a team. */
export function InviteForm({ org, abilities }: { org: FullOrganization; abilities: Abilities }) {
  const t = useT();
  const form = useForm({ email: "", role: "member", team: NO_TEAM }, checks);
  const teams = org.teams ?? [];

  const submit = form.onSubmit(
    () =>
      authClient.organization.inviteMember({
        email: form.values.email.trim(),
        role: form.values.role as RoleName,
        organizationId: org.id,
        ...(form.values.team ? { teamId: form.values.team } : {}),
      }),
    async () => {
      const email = form.values.email.trim();
      form.setValues((v) => ({ ...v, email: "" }));
      form.setNotice({ tone: "success", text: t("invite.sent", { email }) });
      await refreshOrganizations();
    },
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">{t("invite.title")}</h2>
      <p className="muted">{t("invite.intro")}</p>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <div className="form-row">
        <Field label={t("invite.email")} type="email" autoComplete="off" autoCapitalize="none" spellCheck={false} required {...form.field("email")} onBlur={undefined} />
        <SelectField label={t("invite.role")} {...form.field("role")} onBlur={undefined}>
          {ROLE_OPTIONS.filter((o) => abilities.assignable.includes(o.value)).map((o) => (
            <option key={o.value} value={o.value}>
              {roleLabel(o.value)}
            </option>
          ))}
        </SelectField>
        {teams.length > 0 ? (
          <SelectField label={t("invite.team")} {...form.field("team")} onBlur={undefined}>
            <option value={NO_TEAM}>{t("invite.noTeam")}</option>
            {teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </SelectField>
        ) : null}
      </div>
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel={t("invite.submitting")}>
          {t("invite.submit")}
        </Button>
      </div>
    </form>
  );
}
