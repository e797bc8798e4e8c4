"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import type { ListedApiKey } from "./hooks";

/** A "Rename" button that opens a one-field form in place. */
export function RenameApiKey({ apiKey, onRenamed }: { apiKey: ListedApiKey; onRenamed: () => Promise<unknown> }) {
  const [open, setOpen] = useState(false);
  const form = useForm(
    { keyName: apiKey.name ?? "" },
    {
      keyName: (value) =>
        rules.required("a name for the key")(value) ?? (value.trim().length > 32 ? "Use at most 32 characters." : undefined),
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
      <Button tone="secondary" busy={false} onClick={() => setOpen(true)} aria-label={`Rename ${apiKey.name || "unnamed key"}`}>
        Rename
      </Button>
    );
  }
  return (
    <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field label={`New name for ${apiKey.name || "unnamed key"}`} autoFocus maxLength={64} {...form.field("keyName")} />
      <Button type="submit" busy={form.busy} busyLabel="Saving…">
        Save name
      </Button>{" "}
      <Button tone="secondary" busy={false} onClick={() => setOpen(false)}>
        Cancel
      </Button>
    </form>
  );
}
