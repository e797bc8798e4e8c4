import { useSyncExternalStore, type ButtonHTMLAttributes } from "react";

const subscribe = () => () => {};
/** False in the server-rendered HTML and until React runs in the browser. */
function useHydrated() {
  return useSyncExternalStore(subscribe, () => true, () => false);
}

interface Props extends ButtonHTMLAttributes<HTMLButtonElement> {
  busy: boolean;
  busyLabel?: string;
  tone?: "primary" | "secondary" | "danger";
}

/** A button that stays the same size while its action runs and says so to screen readers. */
export function Button({ busy, busyLabel, tone = "primary", children, disabled, type = "button", ...rest }: Props) {
  // Until the app runs, a click would submit the form natively: to a static page.
  const hydrated = useHydrated();
  return (
    <button
      type={type}
      className={`button button-${tone}`}
      disabled={busy || disabled || !hydrated}
      aria-busy={busy || undefined}
      {...rest}
    >
      {busy ? (busyLabel ?? "Working…") : children}
    </button>
  );
}
