// Starts server.mjs on a free port and drives the whole non-interactive
// authorization-code flow with plain fetch, as a relying party would.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";

const CLIENT_ID = "gatehouse-test";
const CLIENT_SECRET = "gatehouse-test-secret";
const REDIRECT_URI = "http://localhost:4321/api/auth/callback/test-oidc";

let child;
let issuer;
// One jar for the whole file: proves that cookies kept between flows do not
// leak the previous user into the next sign-in.
const jar = new Map();

async function freePort() {
  const srv = createServer().listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

before(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
    env: { ...process.env, OIDC_PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes(`oidc-provider listening on ${issuer}`)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
});

after(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const [code, signal] = await exited;
  assert.equal(code, 0, `server should exit cleanly on SIGTERM (signal ${signal})`);
});

async function request(url, init = {}) {
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(url, { redirect: "manual", ...init, headers: { ...init.headers, ...(cookie && { cookie }) } });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair.indexOf("=");
    const [name, value] = [pair.slice(0, i), pair.slice(i + 1)];
    if (!value || /expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(name);
    else jar.set(name, value);
  }
  return res;
}

const b64url = (buf) => Buffer.from(buf).toString("base64url");

// Runs /auth and follows redirects until we are sent to REDIRECT_URI (or get a page).
async function authorize(loginHint, extra = {}) {
  const verifier = b64url(randomBytes(48)); // 64 chars
  const state = b64url(randomBytes(16));
  const nonce = b64url(randomBytes(16));
  const params = {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: "openid email profile",
    state,
    nonce,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    ...(loginHint && { login_hint: loginHint }),
    ...extra,
  };
  let url = `${issuer}/auth?${new URLSearchParams(params)}`;
  for (let hops = 0; hops < 10; hops++) {
    const res = await request(url);
    if (res.status !== 302 && res.status !== 303) {
      return { verifier, state, nonce, res, body: await res.text() };
    }
    url = new URL(res.headers.get("location"), url).href;
    if (url.startsWith(REDIRECT_URI)) {
      return { verifier, state, nonce, callback: new URL(url) };
    }
  }
  throw new Error("too many redirects");
}

async function token(form) {
  const res = await request(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, ...form }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

// Full code flow for one login_hint; returns the token response and id token claims.
async function signIn(loginHint) {
  const flow = await authorize(loginHint);
  assert.ok(flow.callback, `expected a redirect to the callback, got ${flow.res?.status}: ${flow.body}`);
  const q = flow.callback.searchParams;
  assert.ok(q.get("code"), flow.callback.href);
  assert.equal(q.get("state"), flow.state);
  assert.equal(q.get("iss"), issuer);
  const tokens = await token({
    grant_type: "authorization_code",
    code: q.get("code"),
    redirect_uri: REDIRECT_URI,
    code_verifier: flow.verifier,
  });
  const claims = decodeJwt(tokens.id_token);
  assert.equal(claims.nonce, flow.nonce);
  assert.equal(claims.aud, CLIENT_ID);
  return { tokens, claims };
}

let bob;

test("health", async () => {
  const res = await fetch(`${issuer}/health`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "ok");
});

test("code flow for bob: tokens, signed id token, userinfo, refresh", async () => {
  const { tokens, claims } = await signIn("bob@example.com");
  bob = claims;
  assert.ok(tokens.access_token);
  assert.ok(tokens.refresh_token, "refresh token without offline_access");
  assert.equal(claims.email, "bob@example.com");
  assert.equal(claims.email_verified, true);
  assert.equal(claims.name, "Bob");
  assert.equal(claims.picture, "https://example.com/avatar/bob.png");

  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const { payload } = await jwtVerify(tokens.id_token, jwks, { issuer, audience: CLIENT_ID });
  assert.equal(payload.sub, claims.sub);

  const me = await request(`${issuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(me.status, 200);
  const info = await me.json();
  assert.equal(info.sub, claims.sub);
  assert.equal(info.email, "bob@example.com");

  const refreshed = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
  assert.ok(refreshed.access_token);
  assert.notEqual(refreshed.access_token, tokens.access_token);
});

test("second user with the same cookie jar: unverified carol", async () => {
  assert.ok(jar.size > 0, "the jar should hold provider cookies from bob's flow");
  const { claims } = await signIn("unverified-carol@example.com");
  assert.equal(claims.email, "unverified-carol@example.com");
  assert.equal(claims.email_verified, false);
  assert.notEqual(claims.sub, bob.sub);
});

test("same email gives the same sub; no login_hint gives alice", async () => {
  assert.equal((await signIn("bob@example.com")).claims.sub, bob.sub);
  const { claims } = await signIn(undefined);
  assert.equal(claims.email, "alice@example.com");
  assert.equal(claims.name, "Alice Example");
});

test("noemail user has no email claims", async () => {
  const { claims } = await signIn("noemail-dave@example.com");
  assert.ok(claims.sub);
  assert.equal("email" in claims, false);
  assert.equal("email_verified" in claims, false);
});

test("deny user: access_denied on the callback", async () => {
  const flow = await authorize("deny@example.com");
  assert.ok(flow.callback, `expected a redirect to the callback, got ${flow.res?.status}: ${flow.body}`);
  const q = flow.callback.searchParams;
  assert.equal(q.get("error"), "access_denied");
  assert.equal(q.get("error_description"), "The user refused");
  assert.equal(q.get("state"), flow.state);
  assert.equal(q.has("code"), false);
});

test("response_mode=form_post ends in an auto-submitting form", async () => {
  const flow = await authorize("bob@example.com", { response_mode: "form_post" });
  assert.equal(flow.res?.status, 200);
  assert.match(flow.res.headers.get("content-type"), /text\/html/);
  const action = flow.body.match(/<form[^>]*action="([^"]+)"/)?.[1];
  assert.equal(action, REDIRECT_URI);
  const field = (name) => flow.body.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1];
  assert.ok(field("code"));
  assert.equal(field("state"), flow.state);
  assert.equal(field("iss"), issuer);
});
