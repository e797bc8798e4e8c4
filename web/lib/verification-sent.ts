/**
 * Whether this tab's sign-up mailed a verification link (the sign-up answer's
 * `verificationEmailSent`): the verify-email banner then says a link was sent rather than
 * offering the first one. Kept for the tab only, and only for the address it was sent to.
 */
const KEY = "gatehouse.verification-sent";

export function rememberVerificationSent(email: string) {
  try {
    window.sessionStorage.setItem(KEY, email.toLowerCase());
  } catch {
    // Storage refused (a private window's quota): the banner offers a link instead.
  }
}

export function wasVerificationSent(email: string): boolean {
  try {
    return window.sessionStorage.getItem(KEY) === email.toLowerCase();
  } catch {
    return false;
  }
}
