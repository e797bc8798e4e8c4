// Password reset: `POST /request-password-reset`, `GET /reset-password/:token` and
// `POST /reset-password`, against the server at $GATEHOUSE_URL, tokens read only from the
// mails (../mail.mjs).
//
// What better-auth 1.7.7 answers (observed on the reference server: sendResetPassword
// configured, revokeSessionsOnPasswordReset off; dist/api/routes/password.mjs):
//  * POST /request-password-reset {email, redirectTo?}: always 200 {"status":true,"message":
//    "If this email exists in our system, check your email for the reset link"} (the same for
//    an unknown address, which gets no mail; signed in or not); the address is matched
//    case-insensitively. Mail link: `<AUTH_URL>/reset-password/<token>?callbackURL=<encoded
//    redirectTo>`, EMPTY `callbackURL=` without redirectTo; token = 24 chars [A-Za-z0-9].
//    Malformed email → 400 VALIDATION_ERROR; untrusted redirectTo → 403 INVALID_REDIRECT_URL
//    "Invalid redirectURL".
//  * A new request does NOT invalidate earlier tokens: every mailed token works (once) until
//    it expires, in any order.
//  * GET /reset-password/:token?callbackURL (does not consume the token): valid → 302 to
//    callbackURL resolved against the server's base URL (a relative one becomes ABSOLUTE)
//    with `token=<token>` set in its query (replacing a `token` already there, other
//    parameters kept); unknown/used token → the same with `error=INVALID_TOKEN`. No callbackURL
//    → 400 VALIDATION_ERROR; an EMPTY one (the link mailed without redirectTo) → 302 to
//    `<AUTH_URL>/error?error=INVALID_TOKEN` even for a valid token; untrusted → 403
//    INVALID_CALLBACK_URL.
//  * POST /reset-password {newPassword, token?} (or ?token=…; a non-empty body token wins):
//    no token → 400 INVALID_TOKEN; length checked BEFORE the token (< 8 → PASSWORD_TOO_SHORT,
//    > 128 → PASSWORD_TOO_LONG, token not consumed); unknown or used token → 400 INVALID_TOKEN;
//    the user deleted meanwhile → 400 USER_NOT_FOUND (token consumed). Success → 200
//    {"status":true}, no cookie, no session; the old password stops working, existing
//    sessions live on.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AUTH_URL,
  BASE_URL,
  GATEHOUSE,
  PASSWORD,
  assertJson,
  assertNoMail,
  assertRedirect,
  call,
  deleteAccount,
  mailTo,
  newBrowser,
  openLink,
  sessionOf,
  signInStatus,
  signUp,
  uniqueEmail,
} from "./common.mjs";

const GENERIC = { status: true, message: "If this email exists in our system, check your email for the reset link" };
const INVALID_TOKEN = { message: "Invalid token", code: "INVALID_TOKEN" };
const NEW_PASSWORD = "Reset-Password-2024";

/** POST /request-password-reset that must succeed; returns the mail it sent to `email`. */
async function requestReset(email, body = {}, jar) {
  const t = Date.now();
  assertJson(await call("POST", "/request-password-reset", { jar, body: { email, ...body } }), 200, GENERIC, "request-password-reset");
  return mailTo(email, t);
}

const reset = (body, query) => call("POST", "/reset-password", { body, query });
const callback = (token, query) => call("GET", `/reset-password/${encodeURIComponent(token)}`, { query });

describe("POST /request-password-reset", () => {
  test("the generic answer and a mail with better-auth's reset link; the address in any case", async () => {
    const u = await signUp("reset");
    const t = Date.now();
    const res = await u.b.client.requestPasswordReset({ email: u.email.toUpperCase(), redirectTo: "/reset" });
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.deepEqual(res.data, GENERIC);
    assert.equal(u.b.jar.lastSetCookies.length, 0, "no Set-Cookie");

    const mail = await mailTo(u.email, t);
    assert.equal(mail.to, u.email);
    assert.match(mail.token, /^[A-Za-z0-9]{24}$/);
    assert.equal(mail.url, `${AUTH_URL}/reset-password/${mail.token}?callbackURL=%2Freset`);

    // no redirectTo: an empty callbackURL (signed out this time)
    const bare = await requestReset(u.email);
    // Without redirectTo, Gatehouse's link leads to the web app's reset page
    // (RESET_PASSWORD_PAGE); better-auth's carries an empty callbackURL.
    const page = GATEHOUSE ? "%2Freset-password%2F" : "";
    assert.equal(bare.url, `${AUTH_URL}/reset-password/${bare.token}?callbackURL=${page}`);
    assert.notEqual(bare.token, mail.token);
  });

  test("an unknown address: the same answer, no mail", async () => {
    const nobody = uniqueEmail("nobody");
    const t = Date.now();
    assertJson(await call("POST", "/request-password-reset", { body: { email: nobody, redirectTo: "/reset" } }), 200, GENERIC, "unknown");
    await assertNoMail(nobody, t, "unknown address");
  });

  test("bad input: malformed email → 400 VALIDATION_ERROR, untrusted redirectTo → 403 INVALID_REDIRECT_URL, no mail", async () => {
    const u = await signUp("reset");
    const t = Date.now();
    assertJson(await call("POST", "/request-password-reset", { body: { email: "nope" } }), 400, { message: "[body.email] Invalid email address", code: "VALIDATION_ERROR" }, "malformed");
    assertJson(
      await call("POST", "/request-password-reset", { body: { email: u.email, redirectTo: "https://evil.example/reset" } }),
      403,
      { message: "Invalid redirectURL", code: "INVALID_REDIRECT_URL" },
      "untrusted redirectTo"
    );
    await assertNoMail(u.email, t, "refused requests");
  });
});

describe("GET /reset-password/:token", () => {
  test("the mailed link: 302 to the ABSOLUTE callbackURL with ?token=, token not consumed", async () => {
    const u = await signUp("reset");
    const mail = await requestReset(u.email, { redirectTo: "/reset" });
    const res = await openLink(mail.url, u.b.jar);
    assertRedirect(res, `${BASE_URL}/reset?token=${mail.token}`, "reset link");
    assert.deepEqual(res.setCookies, []);
    // again: the GET only looks
    assertRedirect(await callback(mail.token, { callbackURL: "/reset" }), `${BASE_URL}/reset?token=${mail.token}`, "second GET");
    // token set in the query, replacing one already there, other parameters kept
    assertRedirect(
      await callback(mail.token, { callbackURL: `${BASE_URL}/r?token=old&x=1` }),
      `${BASE_URL}/r?token=${mail.token}&x=1`,
      "absolute callbackURL with a query"
    );
    assertJson(await reset({ token: mail.token, newPassword: NEW_PASSWORD }), 200, { status: true }, "token still usable");
    assertRedirect(await callback(mail.token, { callbackURL: "/reset" }), `${BASE_URL}/reset?error=INVALID_TOKEN`, "used token");
  });

  test("unknown token → 302 ?error=INVALID_TOKEN; no callbackURL → 400; untrusted → 403", async () => {
    assertRedirect(await callback("nope", { callbackURL: "/reset" }), `${BASE_URL}/reset?error=INVALID_TOKEN`, "unknown token");
    assertRedirect(await callback("nope", { callbackURL: "/reset?error=x&y=2" }), `${BASE_URL}/reset?error=INVALID_TOKEN&y=2`, "error replaced");
    assertJson(await callback("nope"), 400, { message: "[query.callbackURL] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" }, "no callbackURL");
    assertJson(await callback("nope", { callbackURL: "https://evil.example/reset" }), 403, { message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" }, "untrusted");
  });

  test("the link mailed without redirectTo: better-auth's leads to <AUTH_URL>/error?error=INVALID_TOKEN, Gatehouse's to the reset page", async () => {
    const u = await signUp("reset");
    const mail = await requestReset(u.email);
    const landing = GATEHOUSE ? `${BASE_URL}/reset-password/?token=${mail.token}` : `${AUTH_URL}/error?error=INVALID_TOKEN`;
    assertRedirect(await openLink(mail.url), landing, "valid token, no redirectTo");
    assertRedirect(await callback("nope", { callbackURL: "" }), `${AUTH_URL}/error?error=INVALID_TOKEN`, "unknown token, empty callbackURL");
    // the token itself is fine
    assertJson(await reset({ token: mail.token, newPassword: NEW_PASSWORD }), 200, { status: true }, "reset");
  });
});

describe("POST /reset-password", () => {
  test("success: {status:true}, no cookie; new password works, old fails; sessions kept; the token is single-use", async () => {
    const u = await signUp("reset");
    const other = newBrowser();
    await other.client.signIn.email({ email: u.email, password: PASSWORD });
    const mail = await requestReset(u.email, { redirectTo: "/reset" });

    const fresh = newBrowser();
    const res = await fresh.client.resetPassword({ newPassword: NEW_PASSWORD, token: mail.token });
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.deepEqual(res.data, { status: true });
    assert.equal(fresh.jar.lastResponse.status, 200);
    assert.equal(fresh.jar.lastSetCookies.length, 0, "no cookie");
    assert.equal(await sessionOf(fresh), null, "no session created");

    assert.equal(await signInStatus(u.email, PASSWORD), 401, "old password");
    assert.equal(await signInStatus(u.email, NEW_PASSWORD), 200, "new password");
    assert.equal((await sessionOf(u.b))?.session.token, u.token, "the sign-up session lives on");
    assert.ok(await sessionOf(other), "another browser's session lives on");

    assertJson(await reset({ token: mail.token, newPassword: "Yet-Another-Pass-1" }), 400, INVALID_TOKEN, "second use");
    assert.equal(await signInStatus(u.email, NEW_PASSWORD), 200, "second use changed nothing");
  });

  test("length is checked before the token: PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG leave the token usable", async () => {
    const u = await signUp("reset");
    const mail = await requestReset(u.email);
    assertJson(await reset({ token: mail.token, newPassword: "short12" }), 400, { message: "Password too short", code: "PASSWORD_TOO_SHORT" }, "7 chars");
    assertJson(await reset({ token: mail.token, newPassword: "x".repeat(129) }), 400, { message: "Password too long", code: "PASSWORD_TOO_LONG" }, "129 chars");
    assertJson(await reset({ token: "nope", newPassword: "short12" }), 400, { message: "Password too short", code: "PASSWORD_TOO_SHORT" }, "unknown token, 7 chars");
    assertJson(await reset({ token: mail.token, newPassword: "8-chars!" }), 200, { status: true }, "8 chars");
    assert.equal(await signInStatus(u.email, "8-chars!"), 200);
  });

  test("bad requests: no token / unknown token → 400 INVALID_TOKEN, no newPassword → 400 VALIDATION_ERROR", async () => {
    assertJson(await reset({ newPassword: NEW_PASSWORD }), 400, INVALID_TOKEN, "no token");
    assertJson(await reset({ token: "", newPassword: NEW_PASSWORD }), 400, INVALID_TOKEN, "empty token");
    assertJson(await reset({ token: "nope", newPassword: NEW_PASSWORD }), 400, INVALID_TOKEN, "unknown token");
    assertJson(await reset({ token: "nope" }), 400, { message: "[body.newPassword] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" }, "no newPassword");
  });

  test("the token may come in the query; a body token wins over it", async () => {
    const u = await signUp("reset");
    const mail = await requestReset(u.email);
    assertJson(await reset({ token: "bogus", newPassword: NEW_PASSWORD }, { token: mail.token }), 400, INVALID_TOKEN, "body token wins");
    assertJson(await reset({ newPassword: NEW_PASSWORD }, { token: mail.token }), 200, { status: true }, "query token");
    assert.equal(await signInStatus(u.email, NEW_PASSWORD), 200);
    assertJson(await reset({ newPassword: "Other-Password-99" }, { token: mail.token }), 400, INVALID_TOKEN, "query token reused");
  });

  test("a newer request: better-auth keeps older tokens working, Gatehouse replaces them", async () => {
    const u = await signUp("reset");
    const first = await requestReset(u.email);
    const second = await requestReset(u.email);
    const third = await requestReset(u.email);
    assert.equal(new Set([first.token, second.token, third.token]).size, 3);
    if (GATEHOUSE) {
      // Only the newest link works (the rule: a newer request replaces the older token).
      for (const old of [first, second]) {
        assertJson(await reset({ token: old.token, newPassword: "Old-Password-1" }), 400, INVALID_TOKEN, "an older link");
        assertRedirect(await callback(old.token, { callbackURL: "/reset" }), `${BASE_URL}/reset?error=INVALID_TOKEN`, "an older link's GET");
      }
      assertJson(await reset({ token: third.token, newPassword: "Third-Password-3" }), 200, { status: true }, "the newest");
      assert.equal(await signInStatus(u.email, "Third-Password-3"), 200);
      assert.equal(await signInStatus(u.email, "Old-Password-1"), 401, "no older link changed the password");
      return;
    }

    assertJson(await reset({ token: second.token, newPassword: "Second-Password-2" }), 200, { status: true }, "second");
    assertJson(await reset({ token: first.token, newPassword: "First-Password-1" }), 200, { status: true }, "first, after the second was used");
    assert.equal(await signInStatus(u.email, "First-Password-1"), 200, "the last reset wins");
    assertRedirect(await callback(third.token, { callbackURL: "/reset" }), `${BASE_URL}/reset?token=${third.token}`, "third still valid");
    assertJson(await reset({ token: third.token, newPassword: "Third-Password-3" }), 200, { status: true }, "third");
    assert.equal(await signInStatus(u.email, "Third-Password-3"), 200);
  });

  test("the user deleted after the request: 400 USER_NOT_FOUND, then INVALID_TOKEN (consumed)", async () => {
    const u = await signUp("reset");
    const mail = await requestReset(u.email);
    await deleteAccount(u);
    // Gatehouse deletes a user's links with the user: the token is simply unknown.
    const first = GATEHOUSE ? INVALID_TOKEN : { message: "User not found", code: "USER_NOT_FOUND" };
    assertJson(await reset({ token: mail.token, newPassword: NEW_PASSWORD }), 400, first, "deleted user");
    assertJson(await reset({ token: mail.token, newPassword: NEW_PASSWORD }), 400, INVALID_TOKEN, "again");
    // and a new request for that address sends nothing
    const t = Date.now();
    assertJson(await call("POST", "/request-password-reset", { body: { email: u.email } }), 200, GENERIC, "request for a deleted user");
    await assertNoMail(u.email, t, "deleted user");
  });
});
