"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/apiKey";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import type { ListedApiKey } from "./hooks";

/** A "Rename" button that opens a one-field form in place. */
export function RenameApiKey({ apiKey, onRenamed }: { apiKey: ListedApiKey; onRenamed: () => Promise<unknown> }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const form = useForm(
    { keyName: apiKey.name ?? "" },
    {
      keyName: (value) =>
        rules.required(() => t("create.nameRequired"))(value) ??
        (value.trim().length > 32 ? t("create.nameTooLong", { max: 32 }) : undefined),
    },
  );
  const submit = form.onSubmit(
    () => authClient.apiKey.update({ keyId: apiKey.id, name: form.values.keyName.trim() }),
    async () => {
      setOpen(false);
      await onRenamed();
    },
  );
  if (!open) {
    return (
      <Button tone="secondary" busy={false} onClick={() => setOpen(true)} aria-label={t("rename.openLabel", { name: apiKey.name || t("key.unnamedInSentence") })}>
        {t("rename.open")}
      </Button>
    );
  }
  return (
    <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field label={t("rename.label", { name: apiKey.name || t("key.unnamedInSentence") })} autoFocus maxLength={64} {...form.field("keyName")} />
      <Button type="submit" busy={form.busy} busyLabel={t("rename.submitting")}>
        {t("rename.submit")}
      </Button>{" "}
      <Button tone="secondary" busy={false} onClick={() => setOpen(false)}>
        {t("rename.cancel")}
      </Button>
    </form>
  );
}
