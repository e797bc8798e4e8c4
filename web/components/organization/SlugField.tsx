"use client";
import { useT } from "@/lib/i18n/organization";
import { Field } from "../Field";
import { slugMessage, type SlugStatus } from "./slug";

interface SlugFieldProps {
  name: string;
  value: string;
  /** The form's own error (its rule, or the server's answer on save). */
  error?: string | undefined;
  status: SlugStatus;
  onChange: (e: { target: { value: string } }) => void;
  onBlur?: (() => void) | undefined;
}

/** The slug, with its availability said beside it as it is checked (announced politely). */
export function SlugField({ error, status, ...input }: SlugFieldProps) {
  const t = useT();
  const message = slugMessage(status, input.value);
  return (
    <Field
      label={t("slug.label")}
      autoComplete="off"
      autoCapitalize="none"
      spellCheck={false}
      required
      error={error ?? message.error}
      hint={
        <>
          {t("slug.hint")}{" "}
          <span aria-live="polite" data-testid="slug-status">
            {message.hint ?? ""}
          </span>
        </>
      }
      {...input}
    />
  );
}
