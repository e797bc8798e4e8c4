// Change of email: `POST /change-email` and the mails it leads to (their links go to
// `GET /verify-email`), against the server at $GATEHOUSE_URL, tokens read only from the mails.
//
// What better-auth 1.7.7 answers (observed on the reference server: changeEmail enabled with
// updateEmailWithoutVerification and sendChangeEmailConfirmation, sendVerificationEmail set;
// dist/api/routes/update-user.mjs and email-verification.mjs):
//  * POST /change-email {newEmail, callbackURL?} (auth: session; newEmail lower-cased):
//    - the current address (any case) → 400 {"message":"Email is the same"} (NO code);
//    - another user's address → 200 {"status":true}, nothing changes, nothing is mailed;
//    - signed out → 401 UNAUTHORIZED; malformed → 400 VALIDATION_ERROR; untrusted callbackURL
//      → 403 INVALID_CALLBACK_URL.
//    - current address UNVERIFIED: changed at once → 200 {"status":true}, the session cookie
//      re-issued (same token, Max-Age=604800), emailVerified stays false, and a plain
//      verification mail goes to the NEW address (link `<AUTH_URL>/verify-email?token=…&
//      callbackURL=<callbackURL or "/">`); nothing to the old one. Old address: sign-in 401.
//    - current address VERIFIED: 200 {"status":true}, no cookie, nothing changes yet; a
//      confirmation mail goes to the OLD address (same link shape; JWT with updateTo and
//      requestType "change-email-confirmation").
//  * GET /verify-email with the confirmation token: mails a verification link to the NEW address
//    (requestType "change-email-verification"), then 302 to callbackURL or 200 {"status":true};
//    no cookie, nothing changes yet. Reusable: each visit mails another link.
//  * GET /verify-email with that verification token: email := new, emailVerified := true; the
//    caller's session cookie is re-issued (same token); a browser WITHOUT a session gets a NEW
//    session for the user (1.7.7; 1.7.24 no longer signs in here); 302 or 200
//    {"status":true,"user":{…updated user}}. Once applied, both tokens → 401 USER_NOT_FOUND
//    (they name the old address).
//  * Either token opened in ANOTHER user's browser → 401 INVALID_USER "Invalid user" (or 302
//    to callbackURL?error=INVALID_USER); nothing changes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AUTH_URL,
  BASE_URL,
  GATEHOUSE,
  GATEHOUSE_TOKEN,
  DONT_REMEMBER_COOKIE,
  PASSWORD,
  UNAUTHORIZED,
  assertJson,
  assertNoMail,
  assertRedirect,
  call,
  mailTo,
  newBrowser,
  openLink,
  sessionCookieOf,
  sessionOf,
  signInStatus,
  signUp,
  uniqueEmail,
} from "./common.mjs";

const USER_NOT_FOUND = { message: "User not found", code: "USER_NOT_FOUND" };
const INVALID_USER = { message: "Invalid user", code: "INVALID_USER" };

const changeEmail = (jar, body) => call("POST", "/change-email", { jar, body });
const verify = (query, jar) => call("GET", "/verify-email", { query, jar });
const claims = (jwt) => JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8"));

/** A signed-up user whose address is verified (through the verification mail). */
async function verifiedUser() {
  const u = await signUp("chmail");
  const t = Date.now();
  assertJson(await call("POST", "/send-verification-email", { jar: u.b.jar, body: { email: u.email } }), 200, { status: true }, "send-verification-email");
  const mail = await mailTo(u.email, t);
  assertJson(await verify({ token: mail.token }), 200, { status: true, user: null }, "verify");
  return u;
}

/** A verified user who asked to move to a new address: {…user, newEmail, confirmation}. */
async function pendingChange(callbackURL) {
  const u = await verifiedUser();
  const newEmail = uniqueEmail("chnew");
  const t = Date.now();
  assertJson(await changeEmail(u.b.jar, callbackURL ? { newEmail, callbackURL } : { newEmail }), 200, { status: true }, "change-email");
  return { ...u, newEmail, t, confirmation: await mailTo(u.email, t) };
}

describe("POST /change-email: refusals", () => {
  test("the same address (any case) → 400 {message:'Email is the same'} without a code", async () => {
    const u = await signUp("chmail");
    const res = await u.b.client.changeEmail({ newEmail: u.email.toUpperCase() });
    assert.equal(res.data, null);
    assert.equal(res.error?.status, 400);
    assert.equal(res.error?.message, "Email is the same");
    assert.equal(res.error?.code, undefined, "no code");
    assertJson(await changeEmail(u.b.jar, { newEmail: u.email }), 400, { message: "Email is the same" }, "raw");
  });

  test("another user's address → silent 200 {status:true}: no change, no cookie, no mail", async () => {
    for (const u of [await signUp("chmail"), await verifiedUser()]) {
      const taken = await signUp("chtaken");
      const t = Date.now();
      assertJson(await changeEmail(u.b.jar, { newEmail: taken.email.toUpperCase() }), 200, { status: true }, "taken address");
      assert.equal((await sessionOf(u.b)).user.email, u.email, "unchanged");
      await assertNoMail(taken.email, t, "taken address");
      await assertNoMail(u.email, t, "taken address");
    }
  });

  test("signed out → 401, malformed → 400 VALIDATION_ERROR, untrusted callbackURL → 403", async () => {
    const u = await signUp("chmail");
    assertJson(await changeEmail(undefined, { newEmail: uniqueEmail("chnew") }), 401, UNAUTHORIZED, "signed out");
    assertJson(await changeEmail(u.b.jar, { newEmail: "nope" }), 400, { message: "[body.newEmail] Invalid email address", code: "VALIDATION_ERROR" }, "malformed");
    assertJson(
      await changeEmail(u.b.jar, { newEmail: uniqueEmail("chnew"), callbackURL: "https://evil.example/changed" }),
      403,
      { message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" },
      "untrusted callbackURL"
    );
    assert.equal((await sessionOf(u.b)).user.email, u.email, "unchanged");
  });
});

describe("POST /change-email: unverified address (changed at once)", () => {
  test("200, cookie re-issued, new address in the session, verification mail to the new address only", async () => {
    const u = await signUp("chmail");
    const newEmail = uniqueEmail("CHNEW"); // upper-case input is stored lower-cased
    const t = Date.now();
    const res = await changeEmail(u.b.jar, { newEmail, callbackURL: "/changed" });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { status: true });
    const sc = sessionCookieOf(res);
    assert.ok(sc, "session cookie re-issued");
    assert.equal(sc.token, u.token, "same session");
    assert.equal(sc.attributes["max-age"], "604800", sc.raw);

    const s = await sessionOf(u.b);
    assert.equal(s.user.email, newEmail.toLowerCase());
    assert.equal(s.user.emailVerified, false);

    const mail = await mailTo(newEmail, t);
    assert.equal(mail.to, newEmail.toLowerCase());
    assert.equal(mail.url, `${AUTH_URL}/verify-email?token=${mail.token}&callbackURL=%2Fchanged`);
    if (GATEHOUSE) assert.match(mail.token, GATEHOUSE_TOKEN, "a random token");
    else assert.deepEqual(Object.keys(claims(mail.token)).sort(), ["email", "exp", "iat"], "a plain verification token");
    if (GATEHOUSE) {
      // Stricter: the old address is told of the change, naming the new one (better-auth says
      // nothing); it carries no link that acts on the account.
      const told = await mailTo(u.email, t);
      assert.equal(told.kind, "email-changed");
      assert.match(told.text, new RegExp(newEmail.toLowerCase().replace(/[.]/g, "\\.")));
      assert.equal(told.url, `${BASE_URL}/forgot-password/`, "no token: the link is a page");
    } else {
      await assertNoMail(u.email, t, "old address");
    }

    assert.equal(await signInStatus(u.email, PASSWORD), 401, "old address");
    assert.equal(await signInStatus(newEmail, PASSWORD), 200, "new address");

    // the mailed link verifies the new address like any verification link
    assertRedirect(await openLink(mail.url, u.b.jar), "/changed", "verification link");
    assert.equal((await sessionOf(u.b)).user.emailVerified, true);
  });

  test("in a rememberMe:false browser the re-issued cookie stays session-only", async () => {
    const u = await signUp("chmail");
    const b = newBrowser();
    await b.client.signIn.email({ email: u.email, password: PASSWORD, rememberMe: false });
    const res = await changeEmail(b.jar, { newEmail: uniqueEmail("chnew") });
    assert.equal(res.status, 200, res.text);
    const sc = sessionCookieOf(res);
    assert.ok(sc, "session cookie re-issued");
    assert.equal(sc.attributes["max-age"], undefined, sc.raw);
    assert.ok(res.setCookies.some((c) => c.startsWith(`${DONT_REMEMBER_COOKIE}=`)), "dont_remember re-issued");
  });
});

describe("POST /change-email: verified address (confirm, then verify)", () => {
  test("the whole flow through the mailed links, signed in as the user", async () => {
    const p = await pendingChange("/changed");
    // nothing changed yet, no cookie, confirmation to the OLD address, nothing to the new one
    assert.equal((await sessionOf(p.b)).user.email, p.email);
    assert.equal(p.confirmation.to, p.email);
    assert.equal(p.confirmation.url, `${AUTH_URL}/verify-email?token=${p.confirmation.token}&callbackURL=%2Fchanged`);
    if (GATEHOUSE) {
      assert.match(p.confirmation.token, GATEHOUSE_TOKEN, "a random token");
    } else {
      const c = claims(p.confirmation.token);
      assert.equal(c.email, p.email);
      assert.equal(c.updateTo, p.newEmail);
      assert.equal(c.requestType, "change-email-confirmation");
    }
    await assertNoMail(p.newEmail, p.t, "before confirmation");

    // 1. confirm: a verification mail to the new address, nothing changes yet
    let t = Date.now();
    const confirmed = await openLink(p.confirmation.url, p.b.jar);
    assertRedirect(confirmed, "/changed", "confirmation link");
    assert.deepEqual(confirmed.setCookies, []);
    const verification = await mailTo(p.newEmail, t);
    assert.equal(verification.url, `${AUTH_URL}/verify-email?token=${verification.token}&callbackURL=%2Fchanged`);
    if (GATEHOUSE) {
      assert.match(verification.token, GATEHOUSE_TOKEN, "a random token");
    } else {
      assert.equal(claims(verification.token).requestType, "change-email-verification");
      assert.equal(claims(verification.token).updateTo, p.newEmail);
    }
    assert.equal((await sessionOf(p.b)).user.email, p.email, "not yet changed");

    // 2. verify: changed and verified, the caller's cookie re-issued for the same session
    const verified = await openLink(verification.url, p.b.jar);
    assertRedirect(verified, "/changed", "verification link");
    const sc = sessionCookieOf(verified);
    assert.equal(sc?.token, p.token, "same session re-issued");
    assert.equal(sc.attributes["max-age"], "604800", sc.raw);
    const s = await sessionOf(p.b);
    assert.equal(s.user.email, p.newEmail);
    assert.equal(s.user.emailVerified, true);
    assert.equal(await signInStatus(p.email, PASSWORD), 401, "old address");
    assert.equal(await signInStatus(p.newEmail, PASSWORD), 200, "new address");

    // both tokens name the old address, which is gone now
    assertJson(await verify({ token: p.confirmation.token }), 401, USER_NOT_FOUND, "confirmation token afterwards");
    assertJson(await verify({ token: verification.token }), 401, USER_NOT_FOUND, "verification token afterwards");
  });

  test("without callbackURL: confirmation → 200 {status:true}, verification → 200 {status:true, user}", async () => {
    const p = await pendingChange();
    assert.equal(p.confirmation.url, `${AUTH_URL}/verify-email?token=${p.confirmation.token}&callbackURL=%2F`);
    let t = Date.now();
    assertJson(await verify({ token: p.confirmation.token }, p.b.jar), 200, { status: true }, "confirmation");
    const first = await mailTo(p.newEmail, t);
    // the confirmation link is reusable: another visit mails another verification link
    t = Date.now();
    assertJson(await verify({ token: p.confirmation.token }), 200, { status: true }, "confirmation again, signed out");
    // (a JWT minted within the same second carries the same token: only the mail is new)
    const second = await mailTo(p.newEmail, t);
    assert.equal(second.url, `${AUTH_URL}/verify-email?token=${second.token}&callbackURL=%2F`);

    const res = await verify({ token: first.token }, p.b.jar);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, true);
    assert.equal(res.json.user.id, p.user.id);
    assert.equal(res.json.user.email, p.newEmail);
    assert.equal(res.json.user.emailVerified, true);
    assert.equal(sessionCookieOf(res)?.token, p.token);
    // the other verification link now names a vanished address
    assertJson(await verify({ token: second.token }), 401, USER_NOT_FOUND, "second verification link");
  });

  test("opened in another user's browser: 401 INVALID_USER / 302 ?error=INVALID_USER, nothing changes", async () => {
    const p = await pendingChange();
    const other = await signUp("chother");
    let t = Date.now();
    assertJson(await verify({ token: p.confirmation.token }, other.b.jar), 401, INVALID_USER, "confirmation, other user");
    assertRedirect(await verify({ token: p.confirmation.token, callbackURL: "/changed" }, other.b.jar), "/changed?error=INVALID_USER", "with callbackURL");
    await assertNoMail(p.newEmail, t, "refused confirmation");

    t = Date.now();
    assertJson(await verify({ token: p.confirmation.token }, p.b.jar), 200, { status: true }, "confirmation, owner");
    const verification = await mailTo(p.newEmail, t);
    assertJson(await verify({ token: verification.token }, other.b.jar), 401, INVALID_USER, "verification, other user");
    assert.equal((await sessionOf(p.b)).user.email, p.email, "unchanged");
    assert.equal((await sessionOf(other.b)).user.email, other.email, "the other user unchanged");
  });

  test("the verification link opened signed out: better-auth 1.7.7 signs that browser in, Gatehouse (as 1.7.24) does not", async () => {
    const p = await pendingChange("/changed");
    const t = Date.now();
    assertRedirect(await verify({ token: p.confirmation.token, callbackURL: "/changed" }), "/changed", "confirmation, signed out");
    const verification = await mailTo(p.newEmail, t);

    const fresh = newBrowser();
    const res = await openLink(verification.url, fresh.jar);
    assertRedirect(res, "/changed", "verification, signed out");
    if (GATEHOUSE) {
      // As better-auth 1.7.24: the address changes, and the signed-out browser stays signed out.
      assert.deepEqual(res.setCookies, [], "no session for a signed-out browser");
      assert.equal((await sessionOf(p.b)).user.email, p.newEmail, "changed");
      return;
    }
    const sc = sessionCookieOf(res);
    assert.ok(sc?.token, "a session cookie is set");
    assert.notEqual(sc.token, p.token, "a new session");
    assert.equal(sc.attributes["max-age"], "604800", sc.raw);
    const s = await sessionOf(fresh);
    assert.equal(s.user.id, p.user.id);
    assert.equal(s.user.email, p.newEmail);
    assert.equal(s.user.emailVerified, true);
    assert.equal((await sessionOf(p.b)).session.token, p.token, "the user's own session lives on");
  });
});
