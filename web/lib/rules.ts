import { t } from "./i18n/common";

/**
 * The server's input rules, checked in the browser first so users see them before submitting.
 * They mirror the gateway's defaults (better-auth's: passwords 8–128 characters, usernames
 * 3–30 of letters, digits, `_` and `.`); the server stays the judge, and its answer is shown
 * next to the same field when a deployment configures other limits.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;

// The HTML spec's own definition of a valid email address (what `<input type=email>` accepts).
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const USERNAME = /^[a-zA-Z0-9_.]+$/;

export type Check = (value: string) => string | undefined;

/** Not empty; `message` is asked for when needed, so it is in the language of that moment. */
export const required =
  (message: () => string): Check =>
  (value) =>
    value.trim() === "" ? message() : undefined;

export const email: Check = (value) => {
  if (value.trim() === "") return t("check.emailRequired");
  return EMAIL.test(value.trim()) ? undefined : t("check.emailInvalid");
};

export const password: Check = (value) => {
  if (value === "") return t("check.passwordRequired");
  if (value.length < PASSWORD_MIN) return t("check.atLeast", { min: PASSWORD_MIN });
  if (value.length > PASSWORD_MAX) return t("check.atMost", { max: PASSWORD_MAX });
  return undefined;
};

/** A 6-digit one-time code (an authenticator app's or a mailed one); spaces are ignored. */
export const sixDigitCode: Check = (value) => {
  const code = value.replace(/\s+/g, "");
  if (code === "") return t("check.codeRequired");
  return /^\d{6}$/.test(code) ? undefined : t("check.codeDigits");
};

/** An optional username: empty is fine, anything else must follow the plugin's rules. */
export const username: Check = (value) => {
  const v = value.trim();
  if (v === "") return undefined;
  if (v.length < USERNAME_MIN) return t("check.atLeast", { min: USERNAME_MIN });
  if (v.length > USERNAME_MAX) return t("check.atMost", { max: USERNAME_MAX });
  if (!USERNAME.test(v)) return t("check.usernameCharacters");
  return undefined;
};

export const imageUrl: Check = (value) => {
  const v = value.trim();
  if (v === "") return undefined;
  try {
    const url = new URL(v);
    return url.protocol === "https:" || url.protocol === "http:" ? undefined : t("check.urlScheme");
  } catch {
    return t("check.urlInvalid");
  }
};

export const SLUG_MAX = 48;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * An organization's slug, as a name suggests it: lowercase ASCII letters and digits, other runs
 * of characters as one hyphen ("Café Noir & Co." → "cafe-noir-co").
 */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, SLUG_MAX)
    .replace(/-+$/, "");
}

/**
 * The server takes any slug; the app keeps to what reads well in an address, so a slug can be
 * shared as part of a link.
 */
export const slug: Check = (value) => {
  const v = value.trim();
  if (v === "") return t("check.slugRequired");
  if (v.length > SLUG_MAX) return t("check.atMost", { max: SLUG_MAX });
  return SLUG.test(v) ? undefined : t("check.slugCharacters");
};

/** Runs each field's check; the result has an entry only for fields that fail. */
export function validate<F extends string>(
  values: Record<F, string>,
  checks: Partial<Record<F, Check>>,
): Partial<Record<F, string>> {
  const errors: Partial<Record<F, string>> = {};
  for (const field of Object.keys(checks) as F[]) {
    const message = checks[field]?.(values[field]);
    if (message) errors[field] = message;
  }
  return errors;
}
