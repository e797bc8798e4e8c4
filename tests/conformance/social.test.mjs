// Social sign-in through the official client against a real OpenID provider
// (tests/oidc-provider, started by scripts/test.sh on 127.0.0.1:9090 and configured as
// `test-oidc` in SOCIAL_PROVIDERS). The provider picks its user by `login_hint`, so each test
// names the person who "signs in" at the provider.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AUTH_URL, BASE_URL, GATEHOUSE, PASSWORD, newBrowser, postJson, uniqueEmail } from "./helpers.mjs";
import { ISSUER, PROVIDER, STATE_COOKIE, atProvider, linkSocial, signInSocial } from "./social-flow.mjs";
import { latestMail } from "./mail.mjs";

test("a new user signs in through the provider and lands on the new-user page", async () => {
  const browser = newBrowser();
  const email = uniqueEmail("social-new");
  const { authorize, callback, response, location } = await signInSocial(browser, {
    loginHint: email,
    callbackURL: "/dashboard",
    newUserCallbackURL: "/welcome",
  });
  // The authorization request as better-auth makes it.
  assert.equal(authorize.origin, ISSUER);
  assert.equal(authorize.searchParams.get("response_type"), "code");
  assert.equal(authorize.searchParams.get("client_id"), "gatehouse-test");
  assert.equal(authorize.searchParams.get("redirect_uri"), `${AUTH_URL}/callback/${PROVIDER}`);
  assert.deepEqual(authorize.searchParams.get("scope").split(" ").sort(), ["email", "openid", "profile"]);
  assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
  assert.equal(authorize.searchParams.get("state").length, 32);
  assert.ok(authorize.searchParams.get("nonce"));
  assert.equal(callback.searchParams.get("iss"), ISSUER);

  assert.equal(response.status, 302);
  assert.equal(location, "/welcome");
  assert.equal(browser.jar.has(STATE_COOKIE), false, "the state cookie is used up");
  const session = await browser.client.getSession();
  assert.equal(session.data.user.email, email);
  assert.equal(session.data.user.emailVerified, true, "the provider verified the address");
  const accounts = await browser.client.listAccounts();
  assert.deepEqual(accounts.data.map((a) => a.providerId), [PROVIDER]);
});

test("a new user from a Polish browser gets Polish (Gatehouse's user.language, the mails' language)", async () => {
  const browser = newBrowser();
  const email = uniqueEmail("social-pl");
  const { location } = await signInSocial(browser, {
    loginHint: email,
    callbackURL: "/dashboard",
    fetchOptions: { headers: { "accept-language": "pl-PL,pl;q=0.9,en;q=0.5" } },
  });
  assert.equal(location, "/dashboard");
  const session = await browser.client.getSession();
  assert.equal(session.data.user.email, email);
  if (GATEHOUSE) assert.equal(session.data.user.language, 15, "Polish, the platform's code 15");
  else assert.equal(session.data.user.language, undefined, "better-auth has no such field");
});

test("a returning user is signed in to the same account and goes to the callback URL", async () => {
  const email = uniqueEmail("social-back");
  const first = newBrowser();
  await signInSocial(first, { loginHint: email, callbackURL: "/dashboard" });
  const firstUser = (await first.client.getSession()).data.user;

  const second = newBrowser();
  const { location } = await signInSocial(second, {
    loginHint: email,
    callbackURL: "/dashboard",
    newUserCallbackURL: "/welcome",
  });
  assert.equal(location, "/dashboard");
  assert.equal((await second.client.getSession()).data.user.id, firstUser.id);
});

test("a verified address of an email user is linked; an unverified one is not", async () => {
  // An email user with an unverified address: the provider's verified address does not link
  // to it (better-auth's requireLocalEmailVerified), and says why.
  const email = uniqueEmail("social-link");
  const owner = newBrowser();
  const signedUp = await owner.client.signUp.email({ email, password: PASSWORD, name: "Owner" });
  assert.equal(signedUp.error, null);
  const browser = newBrowser();
  const { location } = await signInSocial(browser, {
    loginHint: email,
    errorCallbackURL: "/sign-in",
  });
  const refused = new URL(location, BASE_URL);
  assert.equal(refused.pathname, "/sign-in");
  assert.equal(refused.searchParams.get("error"), "account_not_linked");
  assert.match(refused.searchParams.get("error_description"), /not verified/);
  assert.equal((await browser.client.getSession()).data, null);

  // Once the address is verified, the same sign-in links the provider to that user.
  const before = Date.now();
  const sent = await owner.client.sendVerificationEmail({ email });
  assert.equal(sent.error, null);
  const mail = await latestMail(email, { after: before, timeoutMs: 10000 });
  assert.ok(mail?.url, "a verification mail came");
  await fetch(mail.url, { redirect: "manual" });
  const linked = await signInSocial(browser, { loginHint: email, callbackURL: "/dashboard" });
  assert.equal(linked.location, "/dashboard");
  const session = await browser.client.getSession();
  assert.equal(session.data.user.id, signedUp.data.user.id);
  const accounts = await browser.client.listAccounts();
  assert.deepEqual(accounts.data.map((a) => a.providerId).sort(), ["credential", PROVIDER]);
});

test("the provider's own refusal and a missing address come back as redirect errors", async () => {
  const refusing = newBrowser();
  const denied = await signInSocial(refusing, {
    loginHint: uniqueEmail("deny"),
    errorCallbackURL: "/sign-in",
  });
  const target = new URL(denied.location, BASE_URL);
  assert.equal(target.searchParams.get("error"), "access_denied");
  assert.equal(target.searchParams.get("error_description"), "The user refused");

  const anonymous = newBrowser();
  const noEmail = await signInSocial(anonymous, {
    loginHint: uniqueEmail("noemail"),
    errorCallbackURL: "/sign-in",
  });
  assert.equal(new URL(noEmail.location, BASE_URL).searchParams.get("error"), "email_not_found");
  assert.equal((await anonymous.client.getSession()).data, null);
});

test("a callback without the browser's state cookie, or used twice, is refused", async () => {
  const browser = newBrowser();
  const started = await browser.client.signIn.social({
    provider: PROVIDER,
    loginHint: uniqueEmail("social-state"),
    errorCallbackURL: "/sign-in",
    disableRedirect: true,
  });
  const { callback } = await atProvider(started.data.url);
  // Another browser brings the code back: the state is not its own.
  const stranger = newBrowser();
  const stolen = await stranger.jar.fetch(callback, { redirect: "manual" });
  const stolenTarget = new URL(stolen.headers.get("location"), BASE_URL);
  assert.equal(stolenTarget.pathname, "/sign-in");
  assert.equal(stolenTarget.searchParams.get("error"), "state_mismatch");
  assert.equal((await stranger.client.getSession()).data, null);
  // The owner's browser still finishes it (the state was not used up), once.
  const own = await browser.jar.fetch(callback, { redirect: "manual" });
  assert.equal(own.status, 302);
  assert.ok((await browser.client.getSession()).data);
  const again = await browser.jar.fetch(callback, { redirect: "manual" });
  const againTarget = new URL(again.headers.get("location"), BASE_URL);
  assert.equal(againTarget.pathname, "/api/auth/error");
  assert.equal(againTarget.searchParams.get("error"), "state_mismatch");
  // No state at all.
  const bare = await browser.jar.fetch(`${AUTH_URL}/callback/${PROVIDER}?code=x`, { redirect: "manual" });
  assert.equal(new URL(bare.headers.get("location")).searchParams.get("error"), "state_not_found");
});

test("a form_post callback is sent on to GET with its parameters", async () => {
  const browser = newBrowser();
  const email = uniqueEmail("social-form");
  const started = await browser.client.signIn.social({
    provider: PROVIDER,
    loginHint: email,
    callbackURL: "/dashboard",
    additionalParams: { response_mode: "form_post" },
    disableRedirect: true,
  });
  const { page } = await atProvider(started.data.url);
  assert.ok(page, "the provider answers an auto-submitting form");
  const action = /action="([^"]+)"/.exec(page)[1];
  const fields = Object.fromEntries(
    [...page.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
  assert.equal(action, `${AUTH_URL}/callback/${PROVIDER}`);
  // The provider's page posts cross-site: no cookies, another origin.
  const posted = await fetch(action, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ISSUER },
    // An ID token posted beside the code (a hybrid flow) must not be carried into a URL.
    body: new URLSearchParams({ ...fields, id_token: "eyJ.secret.token" }),
  });
  assert.equal(posted.status, 302);
  const get = new URL(posted.headers.get("location"));
  assert.equal(get.searchParams.get("id_token"), null);
  assert.equal(`${get.origin}${get.pathname}`, `${AUTH_URL}/callback/${PROVIDER}`);
  assert.equal(get.searchParams.get("state"), fields.state);
  const finished = await browser.jar.fetch(get.href, { redirect: "manual" });
  assert.equal(finished.headers.get("location"), "/dashboard");
  assert.equal((await browser.client.getSession()).data.user.email, email);
});

test("bad starts are refused in the protocol's shape and change nothing", async () => {
  const browser = newBrowser();
  const unknown = await postJson(browser.jar, "/sign-in/social", { provider: "nowhere" });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.code, "PROVIDER_NOT_FOUND");
  const reserved = await postJson(browser.jar, "/sign-in/social", {
    provider: PROVIDER,
    additionalParams: { state: "mine" },
  });
  assert.equal(reserved.status, 400);
  assert.equal(reserved.json.code, "VALIDATION_ERROR");
  const untrusted = await postJson(browser.jar, "/sign-in/social", {
    provider: PROVIDER,
    callbackURL: "https://evil.example/",
  });
  assert.equal(untrusted.status, 403);
  assert.equal(untrusted.json.code, "INVALID_CALLBACK_URL");
  assert.equal(browser.jar.has(STATE_COOKIE), false, "no sign-in was started");
  if (GATEHOUSE) {
    const redirect = await postJson(browser.jar, "/sign-in/social", { provider: PROVIDER });
    assert.equal(redirect.status, 200);
    assert.equal(redirect.json.redirect, true);
    assert.equal(redirect.headers.get("location"), redirect.json.url);
  }
});

test("a signed-in user links the provider's account with the same address, then signs in with it", async () => {
  const email = uniqueEmail("link-own");
  const browser = newBrowser();
  const signedUp = await browser.client.signUp.email({ email, password: PASSWORD, name: "Linker" });
  assert.equal(signedUp.error, null);
  const before = (await browser.client.getSession()).data.session.token;

  const { response, location } = await linkSocial(browser, { loginHint: email });
  assert.equal(response.status, 302);
  assert.equal(location.pathname, "/account");
  assert.equal(location.searchParams.get("error"), null);
  assert.equal((await browser.client.getSession()).data.session.token, before, "no new session");
  const accounts = await browser.client.listAccounts();
  assert.deepEqual(accounts.data.map((a) => a.providerId).sort(), ["credential", PROVIDER]);

  const elsewhere = newBrowser();
  await signInSocial(elsewhere, { loginHint: email });
  assert.equal((await elsewhere.client.getSession()).data.user.id, signedUp.data.user.id);
});

test("a link to a provider account with another address is refused and changes nothing", async () => {
  const browser = newBrowser();
  const email = uniqueEmail("link-mine");
  await browser.client.signUp.email({ email, password: PASSWORD, name: "Mine" });

  const other = await linkSocial(browser, { loginHint: uniqueEmail("link-other") });
  assert.equal(other.location.pathname, "/account");
  assert.equal(other.location.searchParams.get("error"), "email_does_not_match");

  // The provider account of `taken` belongs to the user it signed up.
  const taken = uniqueEmail("link-taken");
  await signInSocial(newBrowser(), { loginHint: taken });
  const thief = newBrowser();
  await thief.client.signUp.email({ email: taken.replace("@", "+x@"), password: PASSWORD, name: "Thief" });
  const stolen = await linkSocial(thief, { loginHint: taken });
  // Its address is not the thief's: refused before ownership is looked at (the Rust suite
  // checks ownership with ACCOUNT_LINKING_ALLOW_DIFFERENT_EMAILS on).
  assert.equal(stolen.location.searchParams.get("error"), "email_does_not_match");
  const accounts = await browser.client.listAccounts();
  assert.deepEqual(accounts.data.map((a) => a.providerId), ["credential"]);
});

test("unlink-account removes a provider account but never the last one", async () => {
  const email = uniqueEmail("unlink");
  const browser = newBrowser();
  await browser.client.signUp.email({ email, password: PASSWORD, name: "Unlinker" });
  await linkSocial(browser, { loginHint: email });

  const unknown = await browser.client.unlinkAccount({ providerId: "nowhere" });
  assert.equal(unknown.error?.status, 400);
  assert.equal(unknown.error?.code, "ACCOUNT_NOT_FOUND");
  const empty = await postJson(browser.jar, "/unlink-account", {});
  assert.equal(empty.status, 400);
  assert.equal(empty.json.code, "ACCOUNT_NOT_FOUND");

  const unlinked = await browser.client.unlinkAccount({ providerId: PROVIDER });
  assert.equal(unlinked.error, null);
  assert.equal(unlinked.data.status, true);
  let accounts = await browser.client.listAccounts();
  assert.deepEqual(accounts.data.map((a) => a.providerId), ["credential"]);

  // The last one, by its own id (better-auth 1.7's form): refused.
  const last = await browser.client.unlinkAccount({ accountId: accounts.data[0].id });
  assert.equal(last.error?.code, "FAILED_TO_UNLINK_LAST_ACCOUNT");
  accounts = await browser.client.listAccounts();
  assert.equal(accounts.data.length, 1);

  const signedOut = await postJson(newBrowser().jar, "/unlink-account", { providerId: PROVIDER });
  assert.equal(signedOut.status, 401);
});

/** What the provider's user-info endpoint answers to an access token. */
async function atUserInfo(accessToken) {
  const response = await fetch(`${ISSUER}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: response.status, body: response.status === 200 ? await response.json() : null };
}

test("the provider's tokens come back valid through getAccessToken, refreshToken and accountInfo", async () => {
  const browser = newBrowser();
  const email = uniqueEmail("social-tokens");
  await signInSocial(browser, { loginHint: email });
  const [account] = (await browser.client.listAccounts()).data;
  assert.deepEqual(account.scopes, ["openid", "email", "profile"]);

  // better-auth 1.7's form (the row id) and its spec's (the provider) name the same account.
  const byRow = await browser.client.getAccessToken({ accountId: account.id });
  assert.equal(byRow.error, null, JSON.stringify(byRow.error));
  const byProvider = await browser.client.getAccessToken({ providerId: PROVIDER });
  assert.equal(byProvider.data.accessToken, byRow.data.accessToken);
  const token = byRow.data;
  assert.deepEqual(token.scopes, ["openid", "email", "profile"]);
  assert.ok(Date.parse(token.accessTokenExpiresAt) > Date.now(), token.accessTokenExpiresAt);
  assert.equal(token.idToken.split(".").length, 3, "the id token, a JWT");
  const before = await atUserInfo(token.accessToken);
  assert.equal(before.status, 200, "the token works at the provider");
  assert.equal(before.body.sub, account.accountId);

  const refreshed = await browser.client.refreshToken({ accountId: account.id });
  assert.equal(refreshed.error, null, JSON.stringify(refreshed.error));
  assert.notEqual(refreshed.data.accessToken, token.accessToken);
  assert.ok(refreshed.data.refreshToken, "the refresh token is answered");
  assert.equal(refreshed.data.scope, "openid,email,profile");
  assert.equal(refreshed.data.providerId, PROVIDER);
  assert.equal(refreshed.data.accountId, account.id);
  assert.equal((await atUserInfo(refreshed.data.accessToken)).status, 200);
  const after = await browser.client.getAccessToken({ accountId: account.id });
  assert.equal(after.data.accessToken, refreshed.data.accessToken, "the refreshed token is kept");

  const info = await browser.client.accountInfo({ query: { accountId: account.id } });
  assert.equal(info.error, null, JSON.stringify(info.error));
  assert.equal(info.data.user.email, email);
  assert.equal(info.data.user.emailVerified, true);
  assert.equal(info.data.data.sub, account.accountId, "the provider's answer as it came");
  assert.deepEqual(info.data.account, { id: account.id, providerId: PROVIDER, accountId: account.accountId });

  // Someone else's account, a credential account, and no session.
  const other = newBrowser();
  await signInSocial(other, { loginHint: uniqueEmail("social-tokens-other") });
  const stolen = await other.client.getAccessToken({ accountId: account.id });
  assert.equal(stolen.error.status, 400);
  assert.equal(stolen.error.code, "ACCOUNT_NOT_FOUND");
  const signedUp = newBrowser();
  await signedUp.client.signUp.email({ email: uniqueEmail("social-tokens-pw"), password: PASSWORD, name: "Pat" });
  const [credential] = (await signedUp.client.listAccounts()).data;
  const notSupported = await signedUp.client.getAccessToken({ accountId: credential.id });
  assert.equal(notSupported.error.code, "PROVIDER_NOT_SUPPORTED");
  assert.equal(notSupported.error.message, "Provider credential is not supported.");
  const noRefresh = await signedUp.client.refreshToken({ accountId: credential.id });
  assert.equal(noRefresh.error.code, "PROVIDER_NOT_SUPPORTED");
  const anonymous = await newBrowser().client.getAccessToken({ accountId: account.id });
  assert.equal(anonymous.error.status, 401);
});

/** An app's own sign-in at the provider (as a mobile app's SDK does): its id token, carrying
 * `nonce`, and the access token issued with it. */
async function appTokens(loginHint, nonce) {
  const { createHash, randomBytes } = await import("node:crypto");
  const verifier = randomBytes(48).toString("base64url");
  const redirectUri = `${AUTH_URL}/callback/native-app`;
  const authorize = new URL(`${ISSUER}/auth`);
  for (const [key, value] of Object.entries({
    client_id: "gatehouse-test",
    response_type: "code",
    scope: "openid email profile",
    redirect_uri: redirectUri,
    state: "app-state",
    nonce,
    login_hint: loginHint,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  })) authorize.searchParams.set(key, value);
  const { callback } = await atProvider(authorize.href);
  const code = new URL(callback).searchParams.get("code");
  const response = await fetch(`${ISSUER}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: "gatehouse-test",
      client_secret: "gatehouse-test-secret",
    }),
  });
  const tokens = await response.json();
  return { idToken: tokens.id_token, accessToken: tokens.access_token };
}

test("an app's id token signs in through signIn.social({idToken}) once verified", async () => {
  const email = uniqueEmail("social-idtoken");
  const { idToken, accessToken } = await appTokens(email, "nonce-1");
  const browser = newBrowser();
  const wrongNonce = await browser.client.signIn.social({ provider: PROVIDER, idToken: { token: idToken, nonce: "nonce-2" } });
  assert.equal(wrongNonce.error.status, 401);
  assert.equal(wrongNonce.error.code, "INVALID_TOKEN");
  const forged = await browser.client.signIn.social({ provider: PROVIDER, idToken: { token: `${idToken.slice(0, -4)}AAAA` } });
  assert.equal(forged.error.code, "INVALID_TOKEN");

  const signedIn = await browser.client.signIn.social({
    provider: PROVIDER,
    idToken: { token: idToken, nonce: "nonce-1", accessToken },
  });
  assert.equal(signedIn.error, null, JSON.stringify(signedIn.error));
  assert.equal(signedIn.data.redirect, false);
  assert.equal(typeof signedIn.data.token, "string");
  assert.equal(signedIn.data.user.email, email);
  assert.equal("url" in signedIn.data, false, "no url, as better-auth");
  const session = await browser.client.getSession();
  assert.equal(session.data.user.email, email);
  const [account] = (await browser.client.listAccounts()).data;
  assert.equal(account.providerId, PROVIDER);
  const token = await browser.client.getAccessToken({ accountId: account.id });
  assert.equal(token.data.accessToken, accessToken, "the app's access token is kept");
  assert.equal(token.data.idToken, idToken);
});

test("an app's id token links through linkSocial({idToken}), once and to one user", async () => {
  const email = uniqueEmail("social-idlink");
  const owner = newBrowser();
  await owner.client.signUp.email({ email, password: PASSWORD, name: "Owner" });
  const { idToken } = await appTokens(email, "n");
  const linked = await owner.client.linkSocial({ provider: PROVIDER, idToken: { token: idToken } });
  assert.equal(linked.error, null, JSON.stringify(linked.error));
  assert.deepEqual(linked.data, { url: "", status: true, redirect: false });
  const providers = (await owner.client.listAccounts()).data.map((a) => a.providerId).sort();
  assert.deepEqual(providers, ["credential", PROVIDER]);

  const other = newBrowser();
  await other.client.signUp.email({ email: uniqueEmail("social-idlink-other"), password: PASSWORD, name: "Other" });
  const taken = await other.client.linkSocial({ provider: PROVIDER, idToken: { token: idToken } });
  assert.equal(taken.error.status, 409);
  assert.equal(taken.error.code, "SOCIAL_ACCOUNT_ALREADY_LINKED");
});
