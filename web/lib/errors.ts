/**
 * better-auth's error codes as readable messages, and which form field each belongs to.
 * One table for every form: a form passes the fields it has, and a code whose field the
 * form lacks is shown at the top of the form instead.
 */
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
  message: string;
  /** Fields in order of preference: the first one the form has gets the message. */
  fields: Field[];
}

const CODES: Record<string, Entry> = {
  INVALID_EMAIL_OR_PASSWORD: { message: "Wrong email or password.", fields: ["password"] },
  INVALID_USERNAME_OR_PASSWORD: { message: "Wrong username or password.", fields: ["password"] },
  INVALID_EMAIL: { message: "This email address is not valid.", fields: ["email", "identifier"] },
  USER_ALREADY_EXISTS: { message: "An account with this email already exists.", fields: ["email"] },
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: {
    message: "An account with this email already exists. Use another email.",
    fields: ["email"],
  },
  PASSWORD_TOO_SHORT: { message: "This password is too short.", fields: ["newPassword", "password"] },
  PASSWORD_TOO_LONG: { message: "This password is too long.", fields: ["newPassword", "password"] },
  INVALID_PASSWORD: { message: "Your current password is not right.", fields: ["currentPassword", "password"] },
  USERNAME_IS_ALREADY_TAKEN: { message: "This username is taken. Try another.", fields: ["username"] },
  USERNAME_TOO_SHORT: { message: "This username is too short.", fields: ["username", "identifier"] },
  USERNAME_TOO_LONG: { message: "This username is too long.", fields: ["username", "identifier"] },
  INVALID_USERNAME: {
    message: "Use only letters, digits, underscores and dots.",
    fields: ["username", "identifier"],
  },
  INVALID_DISPLAY_USERNAME: { message: "This display name is not allowed.", fields: ["username"] },
  EMAIL_NOT_VERIFIED: { message: "Verify your email address first: we sent you a link.", fields: [] },
  SESSION_NOT_FRESH: { message: "For your security, sign in again to do this.", fields: [] },
  SESSION_EXPIRED: { message: "Your session has expired. Sign in again.", fields: [] },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { message: "This account has no password yet.", fields: [] },
  FAILED_TO_CREATE_USER: { message: "We could not create the account. Please try again.", fields: [] },
  INVALID_TOKEN: {
    message: "This link no longer works: it was already used, a newer one replaced it, or it was mistyped.",
    fields: [],
  },
  TOKEN_EXPIRED: { message: "This link has expired.", fields: [] },
  USER_NOT_FOUND: { message: "This link is for an address that no account uses any more.", fields: [] },
  INVALID_USER: { message: "This link belongs to another account. Sign out, then open it again.", fields: [] },
  EMAIL_ALREADY_VERIFIED: { message: "Your email address is already verified.", fields: [] },
  EMAIL_MISMATCH: { message: "This is not the email address of your account.", fields: ["email"] },
  CHANGE_EMAIL_DISABLED: { message: "Changing the email address is turned off here.", fields: [] },
  YOU_CANNOT_BAN_YOURSELF: { message: "You cannot ban yourself.", fields: [] },
  YOU_CANNOT_REMOVE_YOURSELF: { message: "You cannot remove yourself.", fields: [] },
  YOU_CANNOT_IMPERSONATE_ADMINS: { message: "Admins cannot be impersonated.", fields: [] },
  // Only a super-admin (ADMIN_USER_IDS) acts on another admin.
  YOU_CANNOT_CHANGE_ADMINS_ROLE: { message: "Only a super-admin can change another admin's role.", fields: [] },
  YOU_CANNOT_UPDATE_ADMINS: { message: "Only a super-admin can change another admin.", fields: [] },
  YOU_CANNOT_BAN_ADMINS: { message: "Only a super-admin can ban or unban another admin.", fields: [] },
  YOU_CANNOT_REMOVE_ADMINS: { message: "Only a super-admin can remove another admin.", fields: [] },
  YOU_CANNOT_SET_ADMINS_PASSWORD: { message: "Only a super-admin can set another admin's password.", fields: [] },
  YOU_CANNOT_REVOKE_ADMINS_SESSIONS: { message: "Only a super-admin can sign another admin out.", fields: [] },
  YOU_CANNOT_RESET_ADMINS_TWO_FACTOR: {
    message: "Only a super-admin can reset another admin's two-step verification.",
    fields: [],
  },
  YOU_ARE_NOT_ALLOWED_TO_RESET_USERS_TWO_FACTOR: { message: "You are not allowed to reset two-step verification.", fields: [] },
  // API keys.
  INVALID_NAME_LENGTH: { message: "Use a name of 1 to 32 characters.", fields: ["keyName"] },
  KEY_NOT_FOUND: { message: "This key no longer exists.", fields: [] },
  INSUFFICIENT_API_KEY_PERMISSIONS: { message: "Your role cannot manage this organization's API keys.", fields: [] },
  USER_NOT_MEMBER_OF_ORGANIZATION: { message: "You are not a member of this organization.", fields: [] },
  // Two-step verification: a pending sign-in's code, and setting the authenticator app up.
  INVALID_CODE: { message: "This code is not right. Check it and try again.", fields: ["code"] },
  INVALID_BACKUP_CODE: { message: "This backup code is not right, or it was already used.", fields: ["code"] },
  OTP_HAS_EXPIRED: { message: "This code has expired. Send yourself a new one.", fields: ["code"] },
  INVALID_TWO_FACTOR_COOKIE: { message: "This sign-in has timed out. Sign in again.", fields: [] },
  TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE: { message: "Too many wrong codes for this sign-in. Sign in again.", fields: [] },
  ACCOUNT_TEMPORARILY_LOCKED: {
    message: "Too many wrong codes: your account is locked for a while. Try again later.",
    fields: [],
  },
  TOTP_ALREADY_ENABLED: { message: "Two-step verification is already on.", fields: [] },
  TOTP_NOT_ENABLED: { message: "You have not set up an authenticator app. Use another way.", fields: [] },
  OTP_NOT_ENABLED: { message: "Codes by email are not available for your account. Use another way.", fields: [] },
  TWO_FACTOR_NOT_ENABLED: { message: "Two-step verification is off.", fields: [] },
  BACKUP_CODES_NOT_ENABLED: { message: "You have no backup codes. Use another way.", fields: [] },
  // The captcha, where the form shows no widget (its settings did not load): the widget's own
  // form says these beside it.
  MISSING_RESPONSE: { message: "This form needs a security check that did not load. Reload the page and try again.", fields: [] },
  VERIFICATION_FAILED: { message: "The security check failed. Reload the page and try again.", fields: [] },

};

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
  if (error.status === 429 && !entry) return "Too many attempts. Wait a moment and try again.";
  if (error.code && SERVER_WORDED.has(error.code) && error.message) return error.message;
  if (entry) return entry.message;
  if (error.code?.startsWith("YOU_ARE_NOT_ALLOWED_TO_")) {
    return error.message ? `${error.message}.`.replace(/\.\.$/, ".") : "You are not allowed to do this.";
  }
  if (error.status === 0) return "We could not reach the server. Check your connection and try again.";
  if (error.status >= 500) {
    return "Something went wrong on our side. Please try again.";
  }
  return error.message || error.statusText || "Something went wrong. Please try again.";
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
