"use client";
import { useRef, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/apiKey";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { SelectField } from "../SelectField";
import { EXPIRIES, type KeyOwner } from "./hooks";

const NAME_MAX = 32;

/**
 * Makes a key and shows it this once, with a copy button and a warning: only its hash is kept,
 * so it cannot be shown again. `onCreated` refreshes the list.
 */
export function CreateApiKeyForm({ owner, onCreated }: { owner: KeyOwner; onCreated: () => Promise<unknown> }) {
  const t = useT();
  const [made, setMade] = useState<{ name: string; key: string }>();
  const [copied, setCopied] = useState(false);
  const keyField = useRef<HTMLInputElement>(null);
  const form = useForm(
    { keyName: "", expiry: "" },
    {
      keyName: (value) =>
        rules.required(() => t("create.nameRequired"))(value) ??
        (value.trim().length > NAME_MAX ? t("create.nameTooLong", { max: NAME_MAX }) : undefined),
    },
  );

  const submit = form.onSubmit(
    () => {
      const days = Number(form.values.expiry);
      return authClient.apiKey.create({
        name: form.values.keyName.trim(),
        ...(days ? { expiresIn: days * 86_400 } : {}),
        ...(owner.organizationId ? { organizationId: owner.organizationId } : {}),
      });
    },
    async (data) => {
      if (!data) return;
      setCopied(false);
      setMade({ name: data.name ?? "", key: data.key });
      form.reset();
      await onCreated();
      // The key is what the user came for: put focus on it, selected, ready to copy.
      requestAnimationFrame(() => keyField.current?.select());
    },
  );

  async function copy() {
    if (!made) return;
    try {
      await navigator.clipboard.writeText(made.key);
      setCopied(true);
    } catch {
      keyField.current?.select();
    }
  }

  return (
    <div className="stack">
      {made ? (
        <div className="alert alert-success" role="status" data-testid="new-api-key">
          <p>
            <strong>{t("made.copyNow", { name: made.name })}</strong> {t("made.shownOnce")}
          </p>
          <div className="field">
            <label htmlFor="new-api-key-value">{t("made.label")}</label>
            <input id="new-api-key-value" ref={keyField} readOnly value={made.key} spellCheck={false} />
          </div>
          <Button tone="secondary" busy={false} onClick={() => void copy()}>
            {copied ? t("made.copied") : t("made.copy")}
          </Button>{" "}
          <Button tone="secondary" busy={false} onClick={() => setMade(undefined)}>
            {t("made.done")}
          </Button>
        </div>
      ) : null}
      <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="create-key-title">
        <h3 id="create-key-title">{t("create.title")}</h3>
        <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
        <Field label={t("create.name")} hint={t("create.nameHint")} maxLength={64} {...form.field("keyName")} />
        <SelectField label={t("create.expires")} {...form.field("expiry")}>
          {EXPIRIES.map((e) => (
            <option key={e.value} value={e.value}>
              {e.label()}
            </option>
          ))}
        </SelectField>
        <Button type="submit" busy={form.busy} busyLabel={t("create.submitting")}>
          {t("create.submit")}
        </Button>
      </form>
    </div>
  );
}
