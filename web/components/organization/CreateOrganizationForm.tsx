"use client";
import Link from "next/link";
import { useRef, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/organization";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { SlugField } from "./SlugField";
import { useSlugCheck } from "./hooks";
import type { SlugStatus } from "./slug";

/**
 * A new organization: its name, a slug derived from the name until the user edits it (checked
 * for availability as they type), and an optional logo address. The creator becomes its owner
 * and it becomes their active organization.
 */
export function CreateOrganizationForm({ userId, onCreated }: { userId: string; onCreated: (organizationId: string) => void | Promise<void> }) {
  const t = useT();
  const status = useRef<SlugStatus>("idle");
  const form = useForm({ name: "", slug: "", logo: "" }, () => ({
    name: rules.required(() => t("create.nameRequired")),
    slug: (value: string) => rules.slug(value) ?? (status.current === "taken" ? t("slug.taken") : undefined),
    logo: rules.imageUrl,
  }));
  // The slug follows the name until the user types their own (emptying it follows again).
  const [slugEdited, setSlugEdited] = useState(false);
  status.current = useSlugCheck(userId, form.values.slug);

  const name = form.field("name");
  const slug = form.field("slug");

  const submit = form.onSubmit(
    () =>
      authClient.organization.create({
        name: form.values.name.trim(),
        slug: form.values.slug.trim(),
        ...(form.values.logo.trim() ? { logo: form.values.logo.trim() } : {}),
      }),
    async (data) => {
      if (data) await onCreated(data.id);
    },
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="create-org-title">
      <h1 id="create-org-title">{t("create.title")}</h1>
      <p className="muted">{t("create.intro")}</p>
      <FormAlert message={form.notice?.text} />
      <Field
        label={t("create.name")}
        autoComplete="organization"
        required
        {...name}
        onChange={(e) => {
          name.onChange(e);
          if (!slugEdited) slug.onChange({ target: { value: rules.slugify(e.target.value) } });
        }}
      />
      <SlugField
        {...slug}
        status={status.current}
        onChange={(e) => {
          setSlugEdited(e.target.value !== "");
          slug.onChange(e);
        }}
      />
      <Field label={t("create.logo")} type="url" inputMode="url" placeholder="https://" {...form.field("logo")} />
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel={t("create.submitting")}>
          {t("create.submit")}
        </Button>
        <Link className="button button-secondary" href="/organization/">
          {t("create.cancel")}
        </Link>
      </div>
    </form>
  );
}
