/**
 * The app's words in eight languages, on Lingui's runtime (@lingui/core) with catalogs compiled
 * at build time (scripts/messages.mjs), so no message parser ships to the browser.
 *
 * Catalogs come in namespaces (`messages/<tag>/<namespace>.json`). A namespace's English is
 * imported by the code that uses it, so a screen's words travel in that screen's chunk; other
 * languages are fetched when chosen. English always sits under a language's own messages, so a
 * message not yet translated (or not yet fetched) reads in English, never as its key.
 */
import { i18n, type Messages } from "@lingui/core";
import { useSyncExternalStore } from "react";
import { DEFAULT_TAG, type Tag } from "./languages";

i18n.loadAndActivate({ locale: DEFAULT_TAG, messages: {} });

type Loader = (tag: Tag) => Promise<{ default: Messages }>;
const namespaces = new Map<string, { english: Messages; load: Loader }>();
const loaded = new Set<string>();

async function loadNamespace(tag: Tag, name: string): Promise<void> {
  const key = `${tag}/${name}`;
  const entry = namespaces.get(name);
  if (!entry || loaded.has(key)) return;
  loaded.add(key);
  i18n.load(tag, entry.english);
  if (tag === DEFAULT_TAG) return;
  try {
    i18n.load(tag, (await entry.load(tag)).default);
  } catch {
    // Offline or a deploy in between: this namespace stays English until the next choice.
    loaded.delete(key);
  }
}

/** The values a message's `{placeholders}` take. */
export type Values = Record<string, string | number | Date | undefined>;
/** A translator for one namespace: its keys are checked against the English catalog. */
export type Translate<Source> = (key: Extract<keyof Source, string>, values?: Values) => string;

let version = 0;
i18n.on("change", () => {
  version += 1;
});
const subscribe = (listener: () => void) => i18n.on("change", listener);

/** Re-renders the caller when the language changes or a catalog arrives. */
export function useLanguageChange(): Tag {
  useSyncExternalStore(subscribe, () => version, () => 0);
  return i18n.locale as Tag;
}

/**
 * A namespace: `english` is its compiled English catalog (imported statically by the module
 * that calls this), `load` fetches another language's. `t` works anywhere (errors, checks);
 * components call `useT()` so they re-render in a new language.
 */
export function namespace<Source>(name: string, english: object, load: (tag: Tag) => Promise<{ default: object }>) {
  // The compiled JSON's inferred types are wider than Lingui's tuples; the compiler made them.
  namespaces.set(name, { english: english as Messages, load: load as Loader });
  void loadNamespace(DEFAULT_TAG, name);
  // A screen loaded after the user chose a language: its words follow (English meanwhile).
  if (i18n.locale !== DEFAULT_TAG) void loadNamespace(i18n.locale as Tag, name);
  const t: Translate<Source> = (key, values) => i18n._(`${name}.${key}`, values);
  return {
    t,
    useT(): Translate<Source> {
      useLanguageChange();
      return t;
    },
  };
}

/**
 * A translator for a namespace some other module registers, without importing its catalog:
 * for a screen whose chunk would otherwise carry a second copy of it (the 404 page's, which
 * every page loads, reads the shell's words).
 */
export function translator<Source>(name: string) {
  const t: Translate<Source> = (key, values) => i18n._(`${name}.${key}`, values);
  return {
    t,
    useT(): Translate<Source> {
      useLanguageChange();
      return t;
    },
  };
}

let latest = 0;
/** Switches every namespace to `tag` once its catalogs are in (the last call wins). */
export async function activate(tag: Tag): Promise<void> {
  const call = ++latest;
  await Promise.all([...namespaces.keys()].map((name) => loadNamespace(tag, name)));
  if (call !== latest) return;
  i18n.activate(tag);
  if (typeof document !== "undefined") document.documentElement.lang = tag;
}

/** The active language. */
export const currentTag = (): Tag => i18n.locale as Tag;

/** Dates, numbers and money in the active language. */
export const format = {
  date: (value: Date, options?: Intl.DateTimeFormatOptions) => i18n.date(value, options),
  number: (value: number, options?: Intl.NumberFormatOptions) => i18n.number(value, options),
};
