// A social sign-in or link through the test OpenID provider (tests/oidc-provider, started by
// scripts/test.sh on 127.0.0.1:9090 and configured as `test-oidc`), as a browser makes it: the
// official client starts it, the provider answers, the browser comes back to our callback.
import assert from "node:assert/strict";
import { AUTH_URL, BASE_URL } from "./helpers.mjs";

export const PROVIDER = "test-oidc";
export const ISSUER = "http://127.0.0.1:9090";
export const STATE_COOKIE = "better-auth.state";

/** Follows the provider's redirects (its own cookies kept apart) up to our callback URL. */
export async function atProvider(url) {
  const cookies = new Map();
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.startsWith(`${AUTH_URL}/callback/`)) return { callback: url };
    const response = await fetch(url, {
      redirect: "manual",
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const raw of response.headers.getSetCookie()) {
      const [pair] = raw.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get("location");
    if (!location) return { page: await response.text(), status: response.status };
    url = new URL(location, url).href;
  }
  throw new Error("the provider redirected too many times");
}

/** A whole sign-in: the client starts it, the provider answers, the browser comes back. */
export async function signInSocial(browser, { loginHint, ...options } = {}) {
  const started = await browser.client.signIn.social({
    provider: PROVIDER,
    loginHint,
    disableRedirect: true,
    ...options,
  });
  assert.equal(started.error, null, JSON.stringify(started.error));
  assert.equal(started.data.redirect, false);
  const authorize = new URL(started.data.url);
  const { callback } = await atProvider(authorize.href);
  assert.ok(callback, "the provider sent the browser back");
  const response = await browser.jar.fetch(callback, { redirect: "manual" });
  return { authorize, callback: new URL(callback), response, location: response.headers.get("location") };
}

/** A link started by the signed-in `browser`, through the provider as `loginHint`. */
export async function linkSocial(browser, { loginHint, ...options }) {
  const started = await browser.client.linkSocial({
    provider: PROVIDER,
    loginHint,
    disableRedirect: true,
    callbackURL: "/account",
    errorCallbackURL: "/account",
    ...options,
  });
  assert.equal(started.error, null, JSON.stringify(started.error));
  assert.equal(new URL(started.data.url).searchParams.get("login_hint"), loginHint);
  const { callback } = await atProvider(started.data.url);
  const response = await browser.jar.fetch(callback, { redirect: "manual" });
  return { response, location: new URL(response.headers.get("location"), BASE_URL) };
}
