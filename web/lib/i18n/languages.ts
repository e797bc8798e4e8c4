/**
 * The app's languages: the eight the mails are written in, by the platform's codes (a user's
 * saved `language`, the one the mailer reads; see services/kit/src/language.rs).
 */
export const LANGUAGES = [
  { tag: "en", code: 3, name: "English" },
  { tag: "ru", code: 0, name: "Русский" },
  { tag: "uk", code: 1, name: "Українська" },
  { tag: "es", code: 4, name: "Español" },
  { tag: "de", code: 6, name: "Deutsch" },
  { tag: "pl", code: 15, name: "Polski" },
  { tag: "fr", code: 16, name: "Français" },
  { tag: "tr", code: 82, name: "Türkçe" },
] as const;

export type Tag = (typeof LANGUAGES)[number]["tag"];
export const DEFAULT_TAG: Tag = "en";

export const isTag = (value: unknown): value is Tag => LANGUAGES.some((l) => l.tag === value);

/** The tag for a saved platform code; English for a code the app does not know. */
export const tagOfCode = (code: number | null | undefined): Tag => LANGUAGES.find((l) => l.code === code)?.tag ?? DEFAULT_TAG;

export const codeOfTag = (tag: Tag): number => LANGUAGES.find((l) => l.tag === tag)?.code ?? 3;

/** The first of the browser's languages the app speaks (`de-AT` counts as `de`), else English. */
export function fromBrowser(preferred: readonly string[]): Tag {
  for (const range of preferred) {
    const primary = range.split("-")[0]?.toLowerCase();
    if (isTag(primary)) return primary;
  }
  return DEFAULT_TAG;
}
