"use client";
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
  const message = slugMessage(status, input.value);
  return (
    <Field
      label="Slug"
      autoComplete="off"
      autoCapitalize="none"
      spellCheck={false}
      required
      error={error ?? message.error}
      hint={
        <>
          Lowercase letters, digits and hyphens; it names the organization in addresses.{" "}
          <span aria-live="polite" data-testid="slug-status">
            {message.hint ?? ""}
          </span>
        </>
      }
      {...input}
    />
  );
}
