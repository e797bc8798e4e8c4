// The two-factor plugin (`/two-factor/*` and the sign-in gate), driven through the official
// client with `twoFactorClient()`, codes computed with a TOTP library (`otpauth`) from the URI
// the server gave, and mailed codes read from the mailbox.
//
// What better-auth 1.7.7 answers (its plugin's source, `better-auth/dist/plugins/two-factor`):
//  * enable → {method: "totp", totpURI, backupCodes[10]}; the second factor is on only once
//    verify-totp accepts a first code (for the signed-in user);
//  * a password sign-in of a user with it on → {twoFactorRedirect: true, twoFactorMethods}
//    and a signed `two_factor` cookie instead of a session;
//  * verify-totp / verify-otp / verify-backup-code with that cookie → {token, user} and the
//    session cookies; `trustDevice` → a `trust_device` cookie that skips the second factor;
//  * INVALID_CODE / INVALID_BACKUP_CODE / INVALID_TWO_FACTOR_COOKIE (401), OTP_HAS_EXPIRED,
//    TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE, INVALID_PASSWORD (400).
// Gatehouse goes further (README, "Two-factor authentication"): a TOTP code is accepted once,
// guesses count per account, a sign-out everywhere or a new password forgets trusted browsers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { twoFactorClient, usernameClient } from "better-auth/client/plugins";
import * as OTPAuth from "otpauth";
import { PASSWORD, makeAdmin, newBrowser, postJson, uniqueEmail, uniqueUsername } from "./helpers.mjs";
import { latestMail } from "./mail.mjs";
import { linkSocial, signInSocial } from "./social-flow.mjs";

const TWO_FACTOR_COOKIE = "better-auth.two_factor";
const TRUST_COOKIE = "better-auth.trust_device";
const SESSION_COOKIE = "better-auth.session_token";

function browser() {
  const redirects = [];
  const b = newBrowser({
    plugins: [
      usernameClient(),
      twoFactorClient({ onTwoFactorRedirect: (context) => redirects.push(context) }),
    ],
  });
  return { ...b, redirects };
}

/** The code of the step `offset` steps from now, from the URI the server handed out. */
function codeOf(totpURI, offset = 0) {
  const totp = OTPAuth.URI.parse(totpURI);
  return totp.generate({ timestamp: Date.now() + offset * 30_000 });
}

/** A user with an authenticator confirmed: their email, URI and backup codes. */
async function withTwoFactor({ username } = {}) {
  const b = browser();
  const email = uniqueEmail("2fa");
  const signUp = await b.client.signUp.email({ email, password: PASSWORD, name: "Second Factor", username });
  assert.equal(signUp.error, null, JSON.stringify(signUp.error));
  const enabled = await b.client.twoFactor.enable({ password: PASSWORD });
  assert.equal(enabled.error, null, JSON.stringify(enabled.error));
  const { totpURI, backupCodes } = enabled.data;
  const confirmed = await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI) });
  assert.equal(confirmed.error, null, JSON.stringify(confirmed.error));
  return { email, totpURI, backupCodes, first: b };
}

/** A password sign-in that must stop at the second factor. */
async function challenged(email) {
  const b = browser();
  const res = await b.client.signIn.email({ email, password: PASSWORD });
  assert.equal(res.error, null, JSON.stringify(res.error));
  assert.equal(res.data.twoFactorRedirect, true);
  assert.ok(b.jar.has(TWO_FACTOR_COOKIE), "the two-factor cookie is set");
  assert.ok(!b.jar.has(SESSION_COOKIE), "no session yet");
  return b;
}

test("enable answers a URI and ten backup codes; the second factor is on once a first code is verified", async () => {
  const b = browser();
  const email = uniqueEmail("2fa");
  await b.client.signUp.email({ email, password: PASSWORD, name: "Setting Up" });
  const wrong = await b.client.twoFactor.enable({ password: "not-the-password" });
  assert.equal(wrong.error?.status, 400);
  assert.equal(wrong.error?.code, "INVALID_PASSWORD");

  const enabled = await b.client.twoFactor.enable({ password: PASSWORD });
  assert.equal(enabled.error, null, JSON.stringify(enabled.error));
  assert.equal(enabled.data.method, "totp");
  const totp = OTPAuth.URI.parse(enabled.data.totpURI);
  assert.equal(totp.label, email);
  assert.equal(totp.digits, 6);
  assert.equal(totp.period, 30);
  assert.equal(enabled.data.backupCodes.length, 10);
  for (const code of enabled.data.backupCodes) assert.match(code, /^[A-Za-z0-9]{5}-[A-Za-z0-9]{5}$/);
  let session = await b.client.getSession();
  assert.equal(session.data.user.twoFactorEnabled, false, "not on before a code is verified");

  const bad = await b.client.twoFactor.verifyTotp({ code: "000000" === codeOf(enabled.data.totpURI) ? "111111" : "000000" });
  assert.equal(bad.error?.status, 401);
  assert.equal(bad.error?.code, "INVALID_CODE");
  const ok = await b.client.twoFactor.verifyTotp({ code: codeOf(enabled.data.totpURI) });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  assert.equal(ok.data.user.twoFactorEnabled, true);
  session = await b.client.getSession();
  assert.equal(session.data.user.twoFactorEnabled, true, "the session's user says so at once");

  const again = await b.client.twoFactor.enable({ password: PASSWORD });
  assert.equal(again.error?.code, "TOTP_ALREADY_ENABLED");
  const uri = await b.client.twoFactor.getTotpUri({ password: PASSWORD });
  assert.equal(uri.error, null, JSON.stringify(uri.error));
  assert.equal(OTPAuth.URI.parse(uri.data.totpURI).secret.base32, totp.secret.base32);
});

test("a sign-in (email or username) of a user with the second factor stops at a challenge; a TOTP code finishes it, once", async () => {
  const username = uniqueUsername("tf");
  const { email, totpURI } = await withTwoFactor({ username });
  const b = await challenged(email);
  assert.deepEqual(b.redirects, [{ twoFactorMethods: ["totp", "otp"] }], "the client's onTwoFactorRedirect ran");
  assert.equal((await b.client.getSession()).data, null);

  const code = codeOf(totpURI, 1);
  const ok = await b.client.twoFactor.verifyTotp({ code });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  assert.equal(ok.data.user.email, email);
  assert.ok(ok.data.token);
  const session = await b.client.getSession();
  assert.equal(session.data.user.email, email);
  assert.equal(session.data.session.token, ok.data.token);

  // The same code for another sign-in: a replay.
  const other = browser();
  const byUsername = await other.client.signIn.username({ username, password: PASSWORD });
  assert.equal(byUsername.data?.twoFactorRedirect, true, "username sign-in is gated too");
  const replay = await other.client.twoFactor.verifyTotp({ code });
  assert.equal(replay.error?.status, 401);
  assert.equal(replay.error?.code, "INVALID_CODE");
  // A code of a step older than one accepted is refused too, even from the signed-in user.
  const older = await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI, -1) });
  assert.equal(older.error?.code, "INVALID_CODE");
});

test("without a session or a challenge cookie, verification is refused with INVALID_TWO_FACTOR_COOKIE", async () => {
  const b = browser();
  for (const path of ["/two-factor/verify-totp", "/two-factor/verify-otp", "/two-factor/verify-backup-code"]) {
    const res = await postJson(b.jar, path, { code: "123456" });
    assert.equal(res.status, 401, path);
    assert.equal(res.json.code, "INVALID_TWO_FACTOR_COOKIE", path);
  }
  const sent = await postJson(b.jar, "/two-factor/send-otp", {});
  assert.equal(sent.status, 401);
});

test("wrong codes use the challenge up after five; guesses are counted per account", async () => {
  const { email, totpURI } = await withTwoFactor();
  const good = new Set([-1, 0, 1].map((o) => codeOf(totpURI, o)));
  const wrongCode = ["000000", "111111", "222222", "333333"].find((c) => !good.has(c));
  const b = await challenged(email);
  for (let i = 0; i < 5; i += 1) {
    const res = await b.client.twoFactor.verifyTotp({ code: wrongCode });
    assert.equal(res.error?.code, "INVALID_CODE", `attempt ${i + 1}`);
  }
  await new Promise((r) => setTimeout(r, 1100)); // the account's delay after five failures
  const sixth = await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI, 1) });
  assert.equal(sixth.error?.status, 400);
  assert.equal(sixth.error?.code, "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE");
  const after = await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI, 1) });
  assert.equal(after.error?.code, "INVALID_TWO_FACTOR_COOKIE", "the challenge is used up");

  // A fresh challenge does not reset the account's count: the next guess waits.
  const c = await challenged(email);
  const hurried = await postJson(c.jar, "/two-factor/verify-totp", { code: wrongCode });
  assert.equal(hurried.status, 429);
  assert.equal(hurried.json.code, "ACCOUNT_TEMPORARILY_LOCKED");
  assert.ok(Number(hurried.headers.get("x-retry-after")) >= 1);
});

test("a code by mail, in the user's language, finishes a sign-in; a wrong one does not", async () => {
  const { email } = await withTwoFactor();
  const b = await challenged(email);
  const before = Date.now();
  const sent = await b.client.twoFactor.sendOtp();
  assert.equal(sent.error, null, JSON.stringify(sent.error));
  assert.equal(sent.data.status, true);
  const mail = await latestMail(email, { after: before });
  assert.ok(mail, "the code was mailed");
  const code = (mail.text ?? "").match(/\b(\d{6})\b/)?.[1];
  assert.ok(code, `a six-digit code in the mail: ${mail.text}`);
  assert.ok(!mail.subject.includes(code), "the code is not in the subject");

  const wrong = await b.client.twoFactor.verifyOtp({ code: code === "000000" ? "000001" : "000000" });
  assert.equal(wrong.error?.code, "INVALID_CODE");
  const ok = await b.client.twoFactor.verifyOtp({ code });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  assert.equal((await b.client.getSession()).data.user.email, email);
  // Used up with the sign-in.
  const c = await challenged(email);
  const old = await c.client.twoFactor.verifyOtp({ code });
  assert.equal(old.error?.code, "OTP_HAS_EXPIRED");
});

test("each backup code works once; new ones replace the old", async () => {
  const { email, backupCodes, first } = await withTwoFactor();
  const b = await challenged(email);
  const ok = await b.client.twoFactor.verifyBackupCode({ code: backupCodes[0] });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  assert.equal((await b.client.getSession()).data.user.email, email);

  const c = await challenged(email);
  const twice = await c.client.twoFactor.verifyBackupCode({ code: backupCodes[0] });
  assert.equal(twice.error?.status, 401);
  assert.equal(twice.error?.code, "INVALID_BACKUP_CODE");

  const fresh = await first.client.twoFactor.generateBackupCodes({ password: PASSWORD });
  assert.equal(fresh.error, null, JSON.stringify(fresh.error));
  assert.equal(fresh.data.backupCodes.length, 10);
  const stale = await c.client.twoFactor.verifyBackupCode({ code: backupCodes[1] });
  assert.equal(stale.error?.code, "INVALID_BACKUP_CODE", "the old codes are gone");
  const next = await c.client.twoFactor.verifyBackupCode({ code: fresh.data.backupCodes[0] });
  assert.equal(next.error, null, JSON.stringify(next.error));
});

test("a trusted browser skips the second factor across a restart, until a sign-out everywhere", async () => {
  const { email, totpURI } = await withTwoFactor();
  const b = await challenged(email);
  const ok = await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI, 1), trustDevice: true });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  const trust = b.jar.get(TRUST_COOKIE);
  assert.ok(trust, "the trust cookie is set");

  // The browser restarts: only the lasting trust cookie survives.
  const restarted = browser();
  restarted.jar.set(TRUST_COOKIE, trust);
  const direct = await restarted.client.signIn.email({ email, password: PASSWORD });
  assert.equal(direct.error, null, JSON.stringify(direct.error));
  assert.equal(direct.data.twoFactorRedirect, undefined);
  assert.equal(direct.data.user.email, email, "signed in without a code");
  assert.notEqual(restarted.jar.get(TRUST_COOKIE), trust, "trust is renewed under a new identifier");

  // The old value was used up by the renewal: a copy of it is worth nothing.
  const copy = browser();
  copy.jar.set(TRUST_COOKIE, trust);
  const stolen = await copy.client.signIn.email({ email, password: PASSWORD });
  assert.equal(stolen.data?.twoFactorRedirect, true);

  // Signed out everywhere: no browser is trusted any more.
  const revoked = await restarted.client.revokeSessions();
  assert.equal(revoked.error, null, JSON.stringify(revoked.error));
  const later = browser();
  later.jar.set(TRUST_COOKIE, restarted.jar.get(TRUST_COOKIE) ?? trust);
  const gated = await later.client.signIn.email({ email, password: PASSWORD });
  assert.equal(gated.data?.twoFactorRedirect, true);
});

test("a new password forgets the trusted browsers", async () => {
  const { email, totpURI } = await withTwoFactor();
  const b = await challenged(email);
  await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI, 1), trustDevice: true });
  const trust = b.jar.get(TRUST_COOKIE);
  const changed = await b.client.changePassword({ currentPassword: PASSWORD, newPassword: `${PASSWORD}-2` });
  assert.equal(changed.error, null, JSON.stringify(changed.error));
  const later = browser();
  later.jar.set(TRUST_COOKIE, trust);
  const gated = await later.client.signIn.email({ email, password: `${PASSWORD}-2` });
  assert.equal(gated.data?.twoFactorRedirect, true);
});

test("disable takes the password, and sign-ins need no second factor after", async () => {
  const { email, first } = await withTwoFactor();
  const wrong = await first.client.twoFactor.disable({ password: "wrong-password-1" });
  assert.equal(wrong.error?.code, "INVALID_PASSWORD");
  const off = await first.client.twoFactor.disable({ password: PASSWORD });
  assert.equal(off.error, null, JSON.stringify(off.error));
  assert.equal(off.data.status, true);
  assert.equal((await first.client.getSession()).data.user.twoFactorEnabled, false);
  const b = browser();
  const direct = await b.client.signIn.email({ email, password: PASSWORD });
  assert.equal(direct.data?.user?.email, email);
  const codes = await first.client.twoFactor.generateBackupCodes({ password: PASSWORD });
  assert.equal(codes.error?.code, "TWO_FACTOR_NOT_ENABLED");
});

test("an admin resets a user's second factor (user:reset-two-factor): signed out, mailed, sign-in without a code", async () => {
  const { email, first } = await withTwoFactor();
  const userId = (await first.client.getSession()).data.user.id;
  const nobody = browser();
  await nobody.client.signUp.email({ email: uniqueEmail("2fa-nobody"), password: PASSWORD, name: "Nobody" });
  const refused = await postJson(nobody.jar, "/admin/reset-two-factor", { userId });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.code, "YOU_ARE_NOT_ALLOWED_TO_RESET_USERS_TWO_FACTOR");

  const admin = browser();
  const adminEmail = uniqueEmail("2fa-admin");
  await admin.client.signUp.email({ email: adminEmail, password: PASSWORD, name: "Admin" });
  makeAdmin(adminEmail);
  const before = Date.now();
  const reset = await postJson(admin.jar, "/admin/reset-two-factor", { userId });
  assert.equal(reset.status, 200, reset.text);
  assert.equal(reset.json.user.twoFactorEnabled, false);
  assert.equal((await first.client.getSession()).data, null, "the user's sessions ended");
  const mail = await latestMail(email, { after: before });
  assert.ok(mail, "the user was mailed");
  const b = browser();
  const direct = await b.client.signIn.email({ email, password: PASSWORD });
  assert.equal(direct.data?.user?.email, email, "no second factor any more");
});

test("with TWO_FACTOR_SOCIAL_SIGN_IN, a social sign-in of a user with the second factor goes to the code page first", async () => {
  const { email, totpURI, first } = await withTwoFactor();
  const linked = await linkSocial(first, { loginHint: email });
  assert.equal(linked.location.searchParams.get("error"), null, linked.location.href);
  const b = browser();
  const { response, location } = await signInSocial(b, { loginHint: email, callbackURL: "/dashboard" });
  assert.equal(response.status, 302);
  const page = new URL(location, "http://x");
  assert.equal(page.pathname, "/sign-in/two-factor/");
  assert.equal(page.searchParams.get("methods"), "totp,otp");
  assert.equal(page.searchParams.get("callbackURL"), "/dashboard");
  assert.ok(b.jar.has(TWO_FACTOR_COOKIE));
  assert.equal((await b.client.getSession()).data, null, "no session before the code");
  const ok = await b.client.twoFactor.verifyTotp({ code: codeOf(totpURI, 1) });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  assert.equal((await b.client.getSession()).data.user.email, email);
});

test("signing out the other sessions keeps this browser trusted and no other", async () => {
  const { email, totpURI } = await withTwoFactor();
  const here = await challenged(email);
  await here.client.twoFactor.verifyTotp({ code: codeOf(totpURI, 1), trustDevice: true });
  const trustedElsewhere = browser();
  // A second trusted browser: its own challenge, the backup code path.
  const c = await challenged(email);
  const codes = await here.client.twoFactor.generateBackupCodes({ password: PASSWORD });
  const ok = await c.client.twoFactor.verifyBackupCode({ code: codes.data.backupCodes[0], trustDevice: true });
  assert.equal(ok.error, null, JSON.stringify(ok.error));
  trustedElsewhere.jar.set(TRUST_COOKIE, c.jar.get(TRUST_COOKIE));

  const revoked = await here.client.revokeOtherSessions();
  assert.equal(revoked.error, null, JSON.stringify(revoked.error));
  const again = browser();
  again.jar.set(TRUST_COOKIE, here.jar.get(TRUST_COOKIE));
  const direct = await again.client.signIn.email({ email, password: PASSWORD });
  assert.equal(direct.data?.user?.email, email, "this browser is still trusted");
  const other = await trustedElsewhere.client.signIn.email({ email, password: PASSWORD });
  assert.equal(other.data?.twoFactorRedirect, true, "the other one is not");
});

test("update-user refuses twoFactorEnabled (only the two-factor routes change it)", async () => {
  const b = browser();
  await b.client.signUp.email({ email: uniqueEmail("2fa-field"), password: PASSWORD, name: "Field" });
  const res = await postJson(b.jar, "/update-user", { twoFactorEnabled: true });
  assert.equal(res.status, 400);
  assert.equal(res.json.code, "FIELD_NOT_ALLOWED");
  assert.equal((await b.client.getSession()).data.user.twoFactorEnabled, false);
});
