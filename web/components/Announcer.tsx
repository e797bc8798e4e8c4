"use client";
import { useSyncExternalStore } from "react";

/**
 * The app's one pair of live regions, rendered by the shell from the first paint (a region
 * added together with its text is often not read). `announce` from anywhere puts text in them:
 * what a failed submit found, what an action did, without moving focus.
 */
type Politeness = "polite" | "assertive";
let current: Record<Politeness, string> = { polite: "", assertive: "" };
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

/** Says `text` to screen readers; the same text twice in a row is said twice. */
export function announce(text: string, politeness: Politeness = "polite"): void {
  // Empty first, then the text on the next task: a region whose text does not change is silent.
  current = { ...current, [politeness]: "" };
  emit();
  setTimeout(() => {
    current = { ...current, [politeness]: text };
    emit();
  }, 50);
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const empty = { polite: "", assertive: "" };

export function Announcer() {
  const said = useSyncExternalStore(subscribe, () => current, () => empty);
  return (
    <div className="visually-hidden">
      {/* No roles: the page's own alerts and statuses stay the only ones tests and tools find. */}
      <div aria-live="polite" aria-atomic="true" data-testid="announcer-polite">
        {said.polite}
      </div>
      <div aria-live="assertive" aria-atomic="true" data-testid="announcer-assertive">
        {said.assertive}
      </div>
    </div>
  );
}
