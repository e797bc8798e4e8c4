import { useSyncExternalStore, type ButtonHTMLAttributes } from "react";
import { useT } from "@/lib/i18n/common";

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

/**
 * A button that says so while its action runs. Busy, it is `aria-disabled`, not `disabled`: a
 * disabled button drops keyboard focus to the page, and the user would lose their place just
 * when the answer (an error beside it) arrives. Clicks while busy do nothing.
 */
export function Button({ busy, busyLabel, tone = "primary", children, disabled, type = "button", onClick, ...rest }: Props) {
  // Until the app runs, a click would submit the form natively: to a static page.
  const hydrated = useHydrated();
  const t = useT();
  return (
    <button
      type={type}
      className={`button button-${tone}`}
      disabled={disabled || !hydrated}
      aria-disabled={busy || undefined}
      aria-busy={busy || undefined}
      onClick={(event) => {
        if (busy) event.preventDefault();
        else onClick?.(event);
      }}
      {...rest}
    >
      {busy ? (busyLabel ?? t("working")) : children}
    </button>
  );
}
