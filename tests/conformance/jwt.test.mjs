// The jwt plugin (`/jwks`, `/token`, get-session's `set-auth-jwt`), driven through the official
// client with `jwtClient()` and checked as another service would check a token: with `jose`
// against the JWKS URL alone. The stack under test runs with JWT_SET_AUTH_HEADER=true.
//
// What better-auth 1.7.7 answers (observed on the reference server with `jwt()`):
//  * /jwks → {keys: [{alg, crv, x, kty, kid}]} (EdDSA by default; no `use`, no private member);
//  * /token → {token}: header {alg, kid}; claims = the session's user + iat, sub (the user's
//    id), exp (iat + 900), iss and aud (the base URL's origin); 401 UNAUTHORIZED signed out;
//  * get-session → `set-auth-jwt: <the same token>` and `access-control-expose-headers:
//    set-auth-jwt` when a session is answered, neither when the answer is null;
//  * other methods on /token and /jwks → 404 with an empty body.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jwtClient } from "better-auth/client/plugins";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { AUTH_URL, BASE_URL, PASSWORD, newBrowser, uniqueEmail } from "./helpers.mjs";

const ORIGIN = new URL(BASE_URL).origin;
const JWKS = createRemoteJWKSet(new URL(`${AUTH_URL}/jwks`));

async function signedIn() {
  const b = newBrowser({ plugins: [jwtClient()] });
  const email = uniqueEmail("jwt");
  const res = await b.client.signUp.email({ email, password: PASSWORD, name: "Token Holder" });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return { ...b, email, id: res.data.user.id };
}

async function tokenOf(b) {
  const res = await b.client.$fetch("/token", { method: "GET" });
  assert.equal(res.error, null, JSON.stringify(res.error));
  return res.data.token;
}

function verify(token) {
  return jwtVerify(token, JWKS, { issuer: ORIGIN, audience: ORIGIN });
}

test("a user's token verifies against the JWKS with jose, carrying the user and better-auth's claims", async () => {
  const b = await signedIn();
  const token = await tokenOf(b);
  const { payload, protectedHeader } = await verify(token);
  assert.equal(protectedHeader.alg, "EdDSA");
  assert.deepEqual(Object.keys(protectedHeader).sort(), ["alg", "kid"]);
  assert.equal(payload.sub, b.id);
  assert.equal(payload.id, b.id);
  assert.equal(payload.email, b.email);
  assert.equal(payload.name, "Token Holder");
  assert.equal(payload.emailVerified, false);
  assert.equal(payload.image, null);
  assert.match(payload.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(payload.iss, ORIGIN);
  assert.equal(payload.aud, ORIGIN);
  assert.equal(payload.exp - payload.iat, 900);
  assert.ok(Math.abs(payload.iat - Date.now() / 1000) < 60);
});

test("the JWKS publishes public keys only, the signing key among them", async () => {
  const b = await signedIn();
  const res = await b.client.jwks();
  assert.equal(res.error, null, JSON.stringify(res.error));
  const { keys } = res.data;
  assert.ok(keys.length >= 1);
  for (const key of keys) {
    assert.ok(key.kid && key.alg && key.kty, JSON.stringify(key));
    assert.equal(key.d, undefined, "no private member");
    assert.equal(key.use, undefined);
  }
  const { kid } = decodeProtectedHeader(await tokenOf(b));
  const signing = keys.find((k) => k.kid === kid);
  assert.deepEqual({ alg: signing.alg, crv: signing.crv, kty: signing.kty }, { alg: "EdDSA", crv: "Ed25519", kty: "OKP" });
});

test("a token altered in any part is refused", async () => {
  const b = await signedIn();
  const token = await tokenOf(b);
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url"));
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: "someone-else" })).toString("base64url");
  await assert.rejects(verify(`${header}.${forged}.${signature}`), /signature verification failed/);
  await assert.rejects(jwtVerify(token, JWKS, { issuer: "https://elsewhere.example", audience: ORIGIN }), /iss/);
});

test("the token follows the user: an updated name is in the next one", async () => {
  const b = await signedIn();
  const res = await b.client.updateUser({ name: "Renamed Holder" });
  assert.equal(res.error, null, JSON.stringify(res.error));
  const { payload } = await verify(await tokenOf(b));
  assert.equal(payload.name, "Renamed Holder");
});

test("get-session answers set-auth-jwt (exposed to browsers) with a session, not without one", async () => {
  const b = await signedIn();
  let headers;
  const res = await b.client.getSession({ fetchOptions: { onSuccess: (ctx) => { headers = ctx.response.headers; } } });
  assert.equal(res.error, null, JSON.stringify(res.error));
  const header = headers.get("set-auth-jwt");
  assert.ok(header, "a set-auth-jwt header");
  assert.match(headers.get("access-control-expose-headers") ?? "", /set-auth-jwt/);
  const { payload } = await verify(header);
  assert.equal(payload.sub, b.id);

  const anonymous = await fetch(`${AUTH_URL}/get-session`);
  assert.equal(await anonymous.text(), "null");
  assert.equal(anonymous.headers.get("set-auth-jwt"), null);
  assert.equal(anonymous.headers.get("access-control-expose-headers"), null);
});

test("/token refuses a caller without a session; other methods are not routes", async () => {
  const res = await fetch(`${AUTH_URL}/token`);
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { message: "Unauthorized", code: "UNAUTHORIZED" });
  for (const path of ["/token", "/jwks"]) {
    const post = await fetch(`${AUTH_URL}${path}`, { method: "POST", headers: { origin: ORIGIN } });
    assert.equal(post.status, 404, path);
    assert.equal(await post.text(), "", path);
  }
});
