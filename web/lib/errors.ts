/**
 * better-auth's error codes as readable messages, and which form field each belongs to.
 * One table for every form: a form passes the fields it has, and a code whose field the
 * form lacks is shown at the top of the form instead.
 */
import { t, type CommonMessages } from "./i18n/common";

export interface ApiError {
  code?: string | undefined;
  message?: string | undefined;
  status: number;
  statusText?: string | undefined;
}

export type Field =
  | "email"
  | "password"
  | "username"
  | "name"
  | "image"
  | "currentPassword"
  | "newPassword"
  | "identifier"
  | "newEmail"
  // Organization forms.
  | "slug"
  | "logo"
  | "role"
  | "team"
  | "teamName"
  | "confirmation"
  // Billing webhook endpoints.
  | "url"
  | "eventTypes"
  // API keys.
  | "keyName"
  | "expiry"
  // Two-step verification.
  | "code";

export interface Entry {
  message: () => string;
  /** Fields in order of preference: the first one the form has gets the message. */
  fields: Field[];
}

/** The codes with a message of ours (`error.<CODE>` in messages/<tag>/common.json). */
type WordedCode = keyof CommonMessages extends infer K ? (K extends `error.${infer Code}` ? Code : never) : never;

/** Each worded code's fields: the type makes every message have an entry, and the reverse. */
const FIELDS: Record<WordedCode, Field[]> = {
  INVALID_EMAIL_OR_PASSWORD: ["password"],
  INVALID_USERNAME_OR_PASSWORD: ["password"],
  INVALID_EMAIL: ["email", "identifier"],
  USER_ALREADY_EXISTS: ["email"],
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: ["email"],
  PASSWORD_TOO_SHORT: ["newPassword", "password"],
  PASSWORD_TOO_LONG: ["newPassword", "password"],
  INVALID_PASSWORD: ["currentPassword", "password"],
  USERNAME_IS_ALREADY_TAKEN: ["username"],
  USERNAME_TOO_SHORT: ["username", "identifier"],
  USERNAME_TOO_LONG: ["username", "identifier"],
  INVALID_USERNAME: ["username", "identifier"],
  INVALID_DISPLAY_USERNAME: ["username"],
  EMAIL_NOT_VERIFIED: [],
  SESSION_NOT_FRESH: [],
  SESSION_EXPIRED: [],
  CREDENTIAL_ACCOUNT_NOT_FOUND: [],
  FAILED_TO_CREATE_USER: [],
  INVALID_TOKEN: [],
  TOKEN_EXPIRED: [],
  USER_NOT_FOUND: [],
  INVALID_USER: [],
  EMAIL_ALREADY_VERIFIED: [],
  EMAIL_MISMATCH: ["email"],
  CHANGE_EMAIL_DISABLED: [],
  YOU_CANNOT_BAN_YOURSELF: [],
  YOU_CANNOT_REMOVE_YOURSELF: [],
  YOU_CANNOT_IMPERSONATE_ADMINS: [],
  // Only a super-admin (ADMIN_USER_IDS) acts on another admin.
  YOU_CANNOT_CHANGE_ADMINS_ROLE: [],
  YOU_CANNOT_UPDATE_ADMINS: [],
  YOU_CANNOT_BAN_ADMINS: [],
  YOU_CANNOT_REMOVE_ADMINS: [],
  YOU_CANNOT_SET_ADMINS_PASSWORD: [],
  YOU_CANNOT_REVOKE_ADMINS_SESSIONS: [],
  YOU_CANNOT_RESET_ADMINS_TWO_FACTOR: [],
  YOU_ARE_NOT_ALLOWED_TO_RESET_USERS_TWO_FACTOR: [],
  // API keys.
  INVALID_NAME_LENGTH: ["keyName"],
  KEY_NOT_FOUND: [],
  INSUFFICIENT_API_KEY_PERMISSIONS: [],
  USER_NOT_MEMBER_OF_ORGANIZATION: [],
  // Two-step verification: a pending sign-in's code, and setting the authenticator app up.
  INVALID_CODE: ["code"],
  INVALID_BACKUP_CODE: ["code"],
  OTP_HAS_EXPIRED: ["code"],
  INVALID_TWO_FACTOR_COOKIE: [],
  TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE: [],
  ACCOUNT_TEMPORARILY_LOCKED: [],
  TOTP_ALREADY_ENABLED: [],
  TOTP_NOT_ENABLED: [],
  OTP_NOT_ENABLED: [],
  TWO_FACTOR_NOT_ENABLED: [],
  BACKUP_CODES_NOT_ENABLED: [],
  // The captcha, where the form shows no widget (its settings did not load): the widget's own
  // form says these beside it.
  MISSING_RESPONSE: [],
  VERIFICATION_FAILED: [],
};

const CODES: Record<string, Entry> = Object.fromEntries(
  (Object.entries(FIELDS) as [WordedCode, Field[]][]).map(([code, fields]) => [
    code,
    { fields, message: () => t(`error.${code}`) },
  ]),
);

/**
 * More codes for the table, from screens that load apart from the rest (the organization
 * screens add theirs when they load, so the sign-in page does not carry them).
 */
export function addCodes(entries: Record<string, Entry>): void {
  Object.assign(CODES, entries);
}

/** A code the server sends with its own, already user-facing message (bans, permissions). */
const SERVER_WORDED = new Set(["BANNED_USER"]);

export interface Mapped<F extends string> {
  /** Messages for fields the form has. */
  fields: Partial<Record<F, string>>;
  /** A message for the top of the form, when no field fits. */
  form?: string;
}

/** Where and how to show `error` in a form with `formFields`. */
export function mapError<F extends string>(error: ApiError, formFields: readonly F[]): Mapped<F> {
  const message = describe(error);
  const entry = error.code ? CODES[error.code] : undefined;
  const field = entry?.fields.find((f): f is Field & F => (formFields as readonly string[]).includes(f));
  return field ? { fields: { [field]: message } as Partial<Record<F, string>> } : { fields: {}, form: message };
}

/** One sentence for `error`, for places without fields (buttons, lists). */
export function describe(error: ApiError): string {
  // A 429 with a code of its own (a locked account) says so; a bare rate limit, this.
  const entry = error.code ? CODES[error.code] : undefined;
  if (error.status === 429 && !entry) return t("fallback.tooManyAttempts");
  if (error.code && SERVER_WORDED.has(error.code) && error.message) return error.message;
  if (entry) return entry.message();
  if (error.code?.startsWith("YOU_ARE_NOT_ALLOWED_TO_")) {
    return error.message ? `${error.message}.`.replace(/\.\.$/, ".") : t("fallback.notAllowed");
  }
  if (error.status === 0) return t("fallback.unreachable");
  if (error.status >= 500) return t("fallback.server");
  return error.message || error.statusText || t("fallback.unknown");
}

/** The client's `{ data, error }`, with a network failure turned into an error too. */
export async function settle<T>(
  call: Promise<{ data: T | null; error: ApiError | null }>,
): Promise<{ data: T | null; error: ApiError | null }> {
  try {
    return await call;
  } catch {
    return { data: null, error: { status: 0 } };
  }
}

/** For SWR fetchers: the data, or the client's error thrown so SWR keeps it in `error`. */
export async function unwrap<T>(call: Promise<{ data: T | null; error: ApiError | null }>): Promise<T | null> {
  const { data, error } = await settle(call);
  if (error) throw error;
  return data;
}
