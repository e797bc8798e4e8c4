// Social sign-in latency, one flow at a time (bench/run-social.sh): the browser's requests to
// the server under test — POST /sign-in/social, then the provider's hops (not counted), then
// GET /callback/test-oidc (which exchanges the code and reads the user at the provider) — and,
// apart, what the provider's token and user-info endpoints take for an equivalent exchange, so
// the server's own time is the two requests less the provider's answers.
//
//   node bench/social-flow.mjs <base URL> <label>     e.g. http://localhost:3000 gatehouse
//   env: ISSUER (http://127.0.0.1:9090), FLOWS (200), WARMUP_FLOWS (20)
// Prints one JSON line: medians and p90s in ms, and a fresh app id token (for the idToken run).
import { createHash, randomBytes } from "node:crypto";

const [base, label] = process.argv.slice(2);
const ISSUER = process.env.ISSUER || "http://127.0.0.1:9090";
const FLOWS = Number(process.env.FLOWS || 200);
const WARMUP = Number(process.env.WARMUP_FLOWS || 20);
const AUTH = `${base}/api/auth`;

const cookiesOf = (response, jar) => {
  for (const raw of response.headers.getSetCookie()) {
    const [pair] = raw.split(";");
    const at = pair.indexOf("=");
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
};
const header = (jar) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/** Follows the provider's redirects (its own cookies) until `stop` matches. */
async function atProvider(url, stop) {
  const jar = new Map();
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.startsWith(stop)) return url;
    const response = await fetch(url, { redirect: "manual", headers: { cookie: header(jar) } });
    cookiesOf(response, jar);
    const location = response.headers.get("location");
    if (!location) throw new Error(`the provider stopped at ${url}: ${response.status}`);
    url = new URL(location, url).href;
  }
  throw new Error("too many redirects");
}

async function flow(n) {
  const jar = new Map();
  const t0 = performance.now();
  const started = await fetch(`${AUTH}/sign-in/social`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({
      provider: "test-oidc",
      callbackURL: "/",
      disableRedirect: true,
      loginHint: `bench-${label}-${n % 50}@example.com`,
    }),
  });
  const t1 = performance.now();
  cookiesOf(started, jar);
  const { url } = await started.json();
  const callback = await atProvider(url, `${AUTH}/callback/`);
  const t2 = performance.now();
  const back = await fetch(callback, { redirect: "manual", headers: { cookie: header(jar) } });
  const t3 = performance.now();
  const location = back.headers.get("location") || "";
  const session = back.headers.getSetCookie().some((c) => c.includes("session_token="));
  if (back.status !== 302 || !session || location.includes("error")) {
    throw new Error(`${label}: the callback did not sign in: ${back.status} ${location}`);
  }
  return { start: t1 - t0, callback: t3 - t2 };
}

/** An app's own code flow at the provider: the token exchange and user-info times, and its id token. */
async function providerOnly(n) {
  const verifier = randomBytes(48).toString("base64url");
  const redirect = `${AUTH}/callback/bench-app`;
  const authorize = new URL(`${ISSUER}/auth`);
  const params = {
    client_id: "gatehouse-test",
    response_type: "code",
    scope: "openid email profile",
    redirect_uri: redirect,
    state: "s",
    login_hint: `bench-app-${n % 50}@example.com`,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  };
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
  const code = new URL(await atProvider(authorize.href, redirect)).searchParams.get("code");
  const t0 = performance.now();
  const tokens = await (
    await fetch(`${ISSUER}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirect,
        code_verifier: verifier,
        client_id: "gatehouse-test",
        client_secret: "gatehouse-test-secret",
      }),
    })
  ).json();
  const t1 = performance.now();
  await (await fetch(`${ISSUER}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
  const t2 = performance.now();
  return { token: t1 - t0, userinfo: t2 - t1, idToken: tokens.id_token };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const round = (x) => Math.round(x * 100) / 100;

for (let i = 0; i < WARMUP; i += 1) {
  await flow(i);
  await providerOnly(i);
}
// The client's own cost of one request (fetch, HTTP, loopback): a request the server answers
// with no work, for the reader to take out of the two flow requests.
const baseline = [];
for (let i = 0; i < FLOWS; i += 1) {
  const t0 = performance.now();
  await (await fetch(`${AUTH}/ok`)).text();
  baseline.push({ ok: performance.now() - t0 });
}
const flows = [];
const provider = [];
// Interleaved, so both see the same machine.
for (let i = 0; i < FLOWS; i += 1) {
  flows.push(await flow(i));
  provider.push(await providerOnly(i));
}
const med = (xs, key) => round(quantile(xs.map((x) => x[key]), 0.5));
const p90 = (xs, key) => round(quantile(xs.map((x) => x[key]), 0.9));
const result = {
  label,
  flows: FLOWS,
  start_ms: { p50: med(flows, "start"), p90: p90(flows, "start") },
  callback_ms: { p50: med(flows, "callback"), p90: p90(flows, "callback") },
  provider_token_ms: { p50: med(provider, "token"), p90: p90(provider, "token") },
  provider_userinfo_ms: { p50: med(provider, "userinfo"), p90: p90(provider, "userinfo") },
};
result.own_ms_p50 = round(
  result.start_ms.p50 + result.callback_ms.p50 - result.provider_token_ms.p50 - result.provider_userinfo_ms.p50,
);
result.empty_request_ms_p50 = med(baseline, "ok");
result.own_less_round_trips_ms_p50 = round(result.own_ms_p50 - 2 * result.empty_request_ms_p50);
result.id_token = provider[provider.length - 1].idToken;
console.log(JSON.stringify(result));
