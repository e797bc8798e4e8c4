// Email verification: `POST /send-verification-email` and `GET /verify-email`, against the
// server at $GATEHOUSE_URL, tokens read only from the mails (../mail.mjs).
//
// What better-auth 1.7.7 answers (observed on the reference server: sendVerificationEmail
// configured, sendOnSignUp and autoSignInAfterVerification off; dist/api/routes/email-verification.mjs):
//  * POST /send-verification-email {email, callbackURL?}:
//    - signed in: email ≠ the user's (compared case-insensitively) → 400 EMAIL_MISMATCH
//      "Email mismatch"; already verified → 400 EMAIL_ALREADY_VERIFIED "Email is already
//      verified"; else 200 {"status":true} and one mail to the user's stored (lower-case)
//      address with the link `<AUTH_URL>/verify-email?token=<jwt>&callbackURL=<encoded
//      callbackURL, default "/">`. Not padded.
//    - signed out: ALWAYS 200 {"status":true}, answered after ≥ 500 ms; a mail only when the
//      user exists and is unverified (unknown or verified → nothing is sent).
//    - body checked first: malformed email → 400 VALIDATION_ERROR "[body.email] Invalid email
//      address"; an untrusted callbackURL → 403 INVALID_CALLBACK_URL (signed in or out).
//  * GET /verify-email?token&callbackURL? (token = an HS256 JWT {email, iat, exp = iat+3600}):
//    - valid, user unverified → emailVerified := true; with callbackURL 302 to it VERBATIM
//      (relative stays relative), else 200 {"status":true,"user":null}; no Set-Cookie (no
//      auto sign-in), whoever's browser opens it (the link's user is verified, not the caller).
//    - the token is NOT single-use: reopened (user already verified) → the same 302 / 200.
//    - bad signature, garbage, "" → INVALID_TOKEN; the address no longer belongs to anyone
//      (changed or deleted) → USER_NOT_FOUND. With callbackURL: 302 to callbackURL + "?" or "&"
//      + "error=<CODE>" (relative stays relative); without: 401 {"message","code"}.
//    - no token → 400 VALIDATION_ERROR; untrusted callbackURL → 403 INVALID_CALLBACK_URL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AUTH_URL,
  GATEHOUSE,
  GATEHOUSE_TOKEN,
  BASE_URL,
  assertJson,
  assertNoMail,
  assertRedirect,
  call,
  deleteAccount,
  mailTo,
  openLink,
  sessionCookieOf,
  sessionOf,
  signUp,
  uniqueEmail,
} from "./common.mjs";

const INVALID_TOKEN = { message: "Invalid token", code: "INVALID_TOKEN" };
// the reference pads anonymous requests to 500 ms (setTimeout may round ~1 ms early)
const PAD_MS = 495;

/** POST /send-verification-email, timed. */
async function send(body, jar) {
  const t0 = Date.now();
  const res = await call("POST", "/send-verification-email", { jar, body });
  return { ...res, ms: Date.now() - t0 };
}

const verify = (query, jar) => call("GET", "/verify-email", { query, jar });

/** Base64url JSON part of a JWT. */
const jwtPart = (s) => JSON.parse(Buffer.from(s, "base64url").toString("utf8"));

/** A signed-up user with a verification mail in hand: {…user, mail}. */
async function userWithMail(callbackURL) {
  const u = await signUp("verify");
  const t = Date.now();
  const res = await send(callbackURL ? { email: u.email, callbackURL } : { email: u.email }, u.b.jar);
  assertJson(res, 200, { status: true }, "send-verification-email");
  return { ...u, mail: await mailTo(u.email, t) };
}

describe("POST /send-verification-email", () => {
  test("signed in: {status:true} and a mail to the user with better-auth's verify-email link", async () => {
    const u = await signUp("verify");
    const t = Date.now();
    // the client call; the address in another case still matches the session's
    const res = await u.b.client.sendVerificationEmail({ email: u.email.toUpperCase(), callbackURL: "/verified" });
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.deepEqual(res.data, { status: true });
    assert.equal(u.b.jar.lastSetCookies.length, 0, "no Set-Cookie");

    const mail = await mailTo(u.email, t);
    assert.equal(mail.to, u.email, "sent to the stored address");
    assert.equal(mail.url, `${AUTH_URL}/verify-email?token=${mail.token}&callbackURL=%2Fverified`);
    if (GATEHOUSE) {
      assert.match(mail.token, GATEHOUSE_TOKEN, "a random token, stored hashed");
    } else {
      // a better-auth JWT, so links mailed by a better-auth deployment keep working after a switch
      const [header, payload, signature] = mail.token.split(".");
      assert.deepEqual(jwtPart(header), { alg: "HS256" });
      const claims = jwtPart(payload);
      assert.equal(claims.email, u.email);
      assert.equal(claims.exp - claims.iat, 3600, "valid for one hour");
      assert.ok(Math.abs(claims.iat * 1000 - Date.now()) < 120_000, "iat is now");
      assert.match(signature, /^[A-Za-z0-9_-]{43}$/);
    }

    // without callbackURL the link carries "/"
    const t2 = Date.now();
    assertJson(await send({ email: u.email }, u.b.jar), 200, { status: true }, "no callbackURL");
    const mail2 = await mailTo(u.email, t2);
    assert.equal(mail2.url, `${AUTH_URL}/verify-email?token=${mail2.token}&callbackURL=%2F`);
  });

  test("signed in: another address → 400 EMAIL_MISMATCH, a verified one → 400 EMAIL_ALREADY_VERIFIED, no mail", async () => {
    const u = await userWithMail();
    const other = uniqueEmail("verify");
    const t = Date.now();
    assertJson(await send({ email: other }, u.b.jar), 400, { message: "Email mismatch", code: "EMAIL_MISMATCH" }, "mismatch");
    await assertNoMail(other, t, "mismatch");
    await assertNoMail(u.email, t, "mismatch");

    assertJson(await verify({ token: u.mail.token }), 200, { status: true, user: null }, "verify");
    const t2 = Date.now();
    assertJson(await send({ email: u.email }, u.b.jar), 400, { message: "Email is already verified", code: "EMAIL_ALREADY_VERIFIED" }, "verified");
    await assertNoMail(u.email, t2, "already verified");
  });

  test("signed out: always 200 {status:true} after ≥ 500 ms; a mail only for an unverified user", async () => {
    const u = await signUp("verify");
    const unknown = uniqueEmail("nobody");

    let t = Date.now();
    let res = await send({ email: unknown });
    assertJson(res, 200, { status: true }, "unknown address");
    assert.ok(res.ms >= PAD_MS, `unknown address answered after ${res.ms} ms`);
    await assertNoMail(unknown, t, "unknown address");

    t = Date.now();
    res = await send({ email: u.email.toUpperCase(), callbackURL: "/welcome" });
    assertJson(res, 200, { status: true }, "unverified user");
    assert.ok(res.ms >= PAD_MS, `unverified user answered after ${res.ms} ms`);
    const mail = await mailTo(u.email, t);
    assert.equal(mail.url, `${AUTH_URL}/verify-email?token=${mail.token}&callbackURL=%2Fwelcome`);

    assertJson(await verify({ token: mail.token }), 200, { status: true, user: null }, "verify");
    t = Date.now();
    res = await send({ email: u.email });
    assertJson(res, 200, { status: true }, "verified user");
    assert.ok(res.ms >= PAD_MS, `verified user answered after ${res.ms} ms`);
    await assertNoMail(u.email, t, "verified user");
  });

  test("bad input: malformed or missing email → 400 VALIDATION_ERROR, untrusted callbackURL → 403", async () => {
    const u = await signUp("verify");
    assertJson(await send({ email: "not-an-email" }), 400, { message: "[body.email] Invalid email address", code: "VALIDATION_ERROR" }, "malformed");
    assertJson(await send({}), 400, { message: "[body.email] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" }, "missing");
    const t = Date.now();
    const evil = { email: u.email, callbackURL: "https://evil.example/verified" };
    const forbidden = { message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" };
    assertJson(await send(evil, u.b.jar), 403, forbidden, "untrusted callbackURL, signed in");
    assertJson(await send(evil), 403, forbidden, "untrusted callbackURL, signed out");
    await assertNoMail(u.email, t, "refused requests");
  });
});

describe("GET /verify-email", () => {
  test("the mailed link: 302 to callbackURL verbatim, no cookie, emailVerified true in get-session", async () => {
    const u = await userWithMail("/verified?from=mail");
    assert.equal((await sessionOf(u.b)).user.emailVerified, false);

    const res = await openLink(u.mail.url, u.b.jar);
    assertRedirect(res, "/verified?from=mail", "verify link");
    if (GATEHOUSE) {
      // Gatehouse issues the signed-in user's session cookie again, so a cookie cache shows the
      // verified address at once: the same session, no new sign-in.
      assert.equal(sessionCookieOf(res)?.token, u.token, "the same session's cookie");
    } else {
      assert.deepEqual(res.setCookies, [], "no auto sign-in, no cookie re-issued");
    }

    const s = await sessionOf(u.b);
    assert.equal(s.session.token, u.token, "same session");
    assert.equal(s.user.emailVerified, true);
    assert.equal(s.user.email, u.email);
  });

  test("without callbackURL: 200 {status:true, user:null}; reopening the link gives the same answer", async () => {
    const u = await userWithMail();
    assertJson(await verify({ token: u.mail.token }), 200, { status: true, user: null }, "first use");
    // a JWT, not a stored row: it works until it expires
    assertJson(await verify({ token: u.mail.token }), 200, { status: true, user: null }, "second use");
    const again = await verify({ token: u.mail.token, callbackURL: "/done" });
    assertRedirect(again, "/done", "second use with callbackURL");
    assert.deepEqual(again.setCookies, []);
    assert.equal((await sessionOf(u.b)).user.emailVerified, true);

    // the official client's verifyEmail is the same GET
    const c = await u.b.client.verifyEmail({ query: { token: u.mail.token } });
    assert.equal(c.error, null, JSON.stringify(c.error));
    assert.deepEqual(c.data, { status: true, user: null });
  });

  test("opened in another user's browser or a signed-out one: the link's user is verified, no cookie", async () => {
    const u = await userWithMail();
    const other = await signUp("verify");
    const res = await verify({ token: u.mail.token }, other.b.jar);
    assertJson(res, 200, { status: true, user: null }, "other user's browser");
    assert.equal((await sessionOf(other.b)).user.emailVerified, false, "the caller is not verified");
    assert.equal((await sessionOf(other.b)).session.token, other.token, "the caller's session is kept");
    assert.equal((await sessionOf(u.b)).user.emailVerified, true, "the link's user is");

    const v = await userWithMail();
    assertJson(await verify({ token: v.mail.token }), 200, { status: true, user: null }, "signed out");
    assert.equal((await sessionOf(v.b)).user.emailVerified, true);
  });

  test("bad tokens: 401 INVALID_TOKEN, or 302 to callbackURL with ?error=INVALID_TOKEN (relative stays relative)", async () => {
    const u = await userWithMail();
    const [h, p, sig] = u.mail.token.split(".");
    // A token changed in one place: a JWT's signature, or (Gatehouse) a random token's end.
    const tampered = GATEHOUSE
      ? `${u.mail.token.slice(0, -4)}${u.mail.token.endsWith("AAAA") ? "BBBB" : "AAAA"}`
      : `${h}.${p}.${sig.slice(0, -4)}${sig.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    for (const token of [tampered, "not-a-jwt", ""]) {
      assertJson(await verify({ token }), 401, INVALID_TOKEN, `token ${JSON.stringify(token)}`);
      const r = await verify({ token, callbackURL: "/verified" });
      assertRedirect(r, "/verified?error=INVALID_TOKEN", `token ${JSON.stringify(token)} with callbackURL`);
      assert.deepEqual(r.setCookies, []);
    }
    assertRedirect(await verify({ token: tampered, callbackURL: "/verified?from=mail" }), "/verified?from=mail&error=INVALID_TOKEN", "callbackURL with a query");
    assertRedirect(await verify({ token: tampered, callbackURL: `${BASE_URL}/verified` }), `${BASE_URL}/verified?error=INVALID_TOKEN`, "absolute callbackURL");
    assert.equal((await sessionOf(u.b)).user.emailVerified, false, "nothing verified");
  });

  test("the address no longer exists: 401 USER_NOT_FOUND, or 302 ?error=USER_NOT_FOUND", async () => {
    const u = await userWithMail();
    // the user (unverified) moves to another address at once: the mailed token names the old one
    const moved = uniqueEmail("moved");
    const change = await call("POST", "/change-email", { jar: u.b.jar, body: { newEmail: moved } });
    assert.equal(change.status, 200, change.text);
    assertJson(await verify({ token: u.mail.token }), 401, { message: "User not found", code: "USER_NOT_FOUND" }, "old address");
    assertRedirect(await verify({ token: u.mail.token, callbackURL: "/verified" }), "/verified?error=USER_NOT_FOUND", "old address with callbackURL");
    assert.equal((await sessionOf(u.b)).user.emailVerified, false, "the moved user is not verified");

    // likewise once the user is deleted (Gatehouse deletes the user's links with them)
    const d = await userWithMail();
    await deleteAccount(d);
    const gone = GATEHOUSE ? INVALID_TOKEN : { message: "User not found", code: "USER_NOT_FOUND" };
    assertJson(await verify({ token: d.mail.token }), 401, gone, "deleted user");
  });

  test("no token → 400 VALIDATION_ERROR, untrusted callbackURL → 403 INVALID_CALLBACK_URL (nothing verified)", async () => {
    const u = await userWithMail();
    assertJson(await verify({}), 400, { message: "[query.token] Invalid input: expected string, received undefined", code: "VALIDATION_ERROR" }, "no token");
    assertJson(
      await verify({ token: u.mail.token, callbackURL: "https://evil.example/verified" }),
      403,
      { message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" },
      "untrusted callbackURL"
    );
    assert.equal((await sessionOf(u.b)).user.emailVerified, false);
  });
});
