"use client";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/organization";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { ConfirmDialog } from "../ConfirmDialog";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { refreshSessionAndOrganizations, useSlugCheck } from "./hooks";
import type { Abilities } from "./roles";
import { SlugField } from "./SlugField";
import type { FullOrganization } from "./types";
import type { SlugStatus } from "./slug";

/** Name, slug (checked as typed) and logo; and, for an owner, deleting the organization. */
export function SettingsSection({ org, userId, abilities }: { org: FullOrganization; userId: string; abilities: Abilities }) {
  const t = useT();
  const status = useRef<SlugStatus>("idle");
  const form = useForm({ name: org.name, slug: org.slug, logo: org.logo ?? "" }, () => ({
    name: rules.required(() => t("settings.nameRequired")),
    slug: (value: string) => rules.slug(value) ?? (status.current === "taken" ? t("slug.taken") : undefined),
    logo: rules.imageUrl,
  }));
  status.current = useSlugCheck(userId, form.values.slug, { skip: form.values.slug.trim() === org.slug });

  const submit = form.onSubmit(
    () => {
      const slug = form.values.slug.trim();
      return authClient.organization.update({
        organizationId: org.id,
        data: {
          name: form.values.name.trim(),
          ...(slug !== org.slug ? { slug } : {}),
          logo: form.values.logo.trim(),
        },
      });
    },
    async () => {
      form.setNotice({ tone: "success", text: t("settings.saved") });
      await refreshSessionAndOrganizations();
    },
  );

  return (
    <section className="card" aria-labelledby="settings-title">
      <h2 id="settings-title">{t("settings.title")}</h2>
      <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-label={t("settings.formAria")}>
        <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
        <Field label={t("settings.name")} autoComplete="organization" required {...form.field("name")} />
        <SlugField {...form.field("slug")} status={status.current} />
        <Field label={t("settings.logo")} type="url" inputMode="url" placeholder="https://" {...form.field("logo")} />
        <div className="actions">
          <Button type="submit" busy={form.busy} busyLabel={t("settings.saving")}>
            {t("settings.save")}
          </Button>
        </div>
      </form>
      {abilities.deleteOrganization ? <DeleteOrganization org={org} /> : null}
    </section>
  );
}

/** Deleting, behind a dialog that wants the slug typed out. */
function DeleteOrganization({ org }: { org: FullOrganization }) {
  const t = useT();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const close = () => {
    setOpen(false);
    setTyped("");
  };
  return (
    <div className="dialog-section">
      <h3>{t("delete.title")}</h3>
      <p className="muted">{t("delete.intro")}</p>
      <Button tone="danger" busy={false} onClick={() => setOpen(true)}>
        {t("delete.open")}
      </Button>
      <ConfirmDialog
        open={open}
        title={t("delete.dialogTitle", { organization: org.name })}
        confirmLabel={t("delete.confirm")}
        busyLabel={t("delete.deleting")}
        ready={typed.trim() === org.slug}
        onClose={close}
        onConfirm={async () => {
          const { error } = await settle(authClient.organization.delete({ organizationId: org.id }));
          if (error) return error;
          await refreshSessionAndOrganizations();
          router.push("/organization/");
          return null;
        }}
      >
        <p>{t("delete.text")}</p>
        <Field
          label={t("delete.typeToConfirm", { slug: org.slug })}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
      </ConfirmDialog>
    </div>
  );
}
