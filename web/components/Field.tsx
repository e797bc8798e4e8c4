import { useId, type InputHTMLAttributes, type ReactNode, type Ref } from "react";

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: string;
  /** Shown under the input and announced with it (`aria-describedby`). */
  error?: string | undefined;
  hint?: ReactNode;
  /** The input itself (React 19 passes `ref` as a prop), for forms that move focus to it. */
  ref?: Ref<HTMLInputElement>;
}

/** A labelled input with its hint and its error beside it, linked for screen readers. */
export function Field({ label, error, hint, ...input }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint ? (
        <p id={hintId} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
