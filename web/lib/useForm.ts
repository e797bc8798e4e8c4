"use client";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { announce } from "@/components/Announcer";
import { mapError, settle, type ApiError } from "./errors";
import { t } from "./i18n/common";
import { validate, type Check } from "./rules";

export type Notice = { tone: "error" | "success"; text: string };

/** A part of a form besides its text fields that a submit needs (a captcha's token). */
export interface SubmitGuard {
  /** Before sending, with the fields' checks: false stops the submit (the guard shows why). */
  check(): boolean;
  /** After the answer. True: the error was the guard's and it shows it (not the form). */
  settled(error: ApiError | null): boolean;
}

/**
 * One form's state, written once for every form: its values, each field's error (its own
 * check when the user leaves it, every check on submit, the server's answer mapped to the
 * field it is about), a message for the top of the form, and whether it is sending.
 */
export function useForm<F extends string>(
  initial: Record<F, string>,
  /** Each field's check; a function when one field's rule reads another (a repeated password). */
  rules: Partial<Record<F, Check>> | ((values: Record<F, string>) => Partial<Record<F, Check>>),
) {
  const [values, setValues] = useState(initial);
  const checks = typeof rules === "function" ? rules(values) : rules;
  const [errors, setErrors] = useState<Partial<Record<F, string>>>({});
  const [notice, setNotice] = useState<Notice>();
  const [busy, setBusy] = useState(false);
  // Read by the submit handler, which a second Enter can call before `busy` re-renders.
  const sending = useRef(false);
  const fields = Object.keys(initial) as F[];
  const inputs = useRef(new Map<F, HTMLElement>());
  // Set by a refused submit, acted on once the errors are on the page (their ids exist then).
  const [speak, setSpeak] = useState<Partial<Record<F, string>>>();

  useEffect(() => {
    if (!speak) return;
    setSpeak(undefined);
    const invalid = fields.filter((name) => speak[name]);
    // The first one on the page, which is where a sighted user would look.
    const first = invalid
      .map((name) => inputs.current.get(name))
      .filter((element): element is HTMLElement => element !== undefined)
      .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0];
    first?.focus();
    const messages = invalid.map((name) => speak[name]);
    announce(
      messages.length === 1 ? (messages[0] ?? "") : `${t("fieldsNeedAttention", { count: messages.length })} ${messages.join(" ")}`,
    );
  }, [speak, fields]);

  /** Props for a `<Field>` bound to `name`. */
  const field = (name: F) => ({
    name,
    value: values[name],
    error: errors[name],
    onChange: (e: { target: { value: string } }) => {
      setValues((v) => ({ ...v, [name]: e.target.value }));
      if (errors[name]) setErrors((er) => ({ ...er, [name]: undefined }));
    },
    onBlur: () => setErrors((er) => ({ ...er, [name]: checks[name]?.(values[name]) })),
    ref: (element: HTMLElement | null) => {
      if (element) inputs.current.set(name, element);
      else inputs.current.delete(name);
    },
  });

  /**
   * The submit handler: checks every field, then runs `send` (the client's call) with the
   * busy state on. A refusal lands next to its field or at the top; `done` runs on success.
   * A `guard` is checked with the fields and told the answer.
   */
  const onSubmit =
    <T,>(
      send: () => Promise<{ data: T | null; error: ApiError | null }>,
      done: (data: T | null) => void | Promise<void>,
      guard?: SubmitGuard,
    ) =>
    async (event: FormEvent) => {
      event.preventDefault();
      if (sending.current) return;
      const found = validate(values, checks);
      setErrors(found);
      setNotice(undefined);
      const guarded = guard ? guard.check() : true;
      if (Object.keys(found).length > 0) setSpeak(found);
      if (Object.keys(found).length > 0 || !guarded) return;
      sending.current = true;
      setBusy(true);
      const { data, error } = await settle(send());
      sending.current = false;
      setBusy(false);
      if (guard?.settled(error)) return;
      if (error) {
        const mapped = mapError(error, fields);
        setErrors(mapped.fields);
        // A field's error takes focus there; the form's stays where focus is (the button),
        // and its alert is read out.
        if (Object.keys(mapped.fields).length > 0) setSpeak(mapped.fields);
        if (mapped.form) setNotice({ tone: "error", text: mapped.form });
        return;
      }
      await done(data);
    };

  /** Moves focus to `name`'s input (a form that opens on a field, or changes what it asks). */
  const focus = (name: F) => inputs.current.get(name)?.focus();

  /** Back to the initial values, with no field errors (the notice stays: callers set it). */
  const reset = () => {
    setValues(initial);
    setErrors({});
  };

  return { values, setValues, errors, notice, setNotice, busy, field, onSubmit, reset, focus };
}
