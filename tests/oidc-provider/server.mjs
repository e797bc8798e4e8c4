// A real OpenID Connect provider (panva/oidc-provider) for Gatehouse's automated
// tests. Sign-in is non-interactive: the user is picked from `login_hint`, so a
// client that just follows redirects ends up on its callback. See README.md.
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";

const port = Number(process.env.OIDC_PORT ?? 9090);
const issuer = `http://127.0.0.1:${port}`;
const accessTokenTtl = Number(process.env.OIDC_ACCESS_TOKEN_TTL ?? 3600);

// A fresh signing key per start: tests fetch /jwks, nothing is persisted.
const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: randomBytes(8).toString("hex"), alg: "RS256", use: "sig" };

// sub -> profile, filled when an interaction picks a user.
const accounts = new Map();

function userFor(loginHint) {
  const email = (loginHint || "alice@example.com").trim();
  const local = email.split("@")[0];
  const sub = "sub-" + createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 16);
  if (local.startsWith("deny")) return { deny: true };
  const profile = {
    sub,
    name: email === "alice@example.com" ? "Alice Example" : local.charAt(0).toUpperCase() + local.slice(1),
    picture: `https://example.com/avatar/${local}.png`,
  };
  if (!local.startsWith("noemail")) {
    profile.email = email;
    profile.email_verified = !local.startsWith("unverified");
  }
  return { profile };
}

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "gatehouse-test",
      client_secret: "gatehouse-test-secret",
      token_endpoint_auth_method: "client_secret_post",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // Registration needs one; the real check is redirectUriAllowed below.
      redirect_uris: ["http://localhost/api/auth/callback/test-oidc"],
    },
  ],
  jwks: { keys: [jwk] },
  cookies: { keys: [randomBytes(32).toString("hex")] },
  pkce: { required: () => true },
  scopes: ["openid", "email", "profile", "offline_access"],
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "picture"] },
  // Put the scope's claims in the id token too (better-auth reads email from it).
  conformIdTokenClaims: false,
  // better-auth does not always ask for offline_access; issue a refresh token anyway.
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed("refresh_token"),
  // Each refresh token works once, and a second use revokes the grant, as at providers that
  // rotate them (Google for some clients, Microsoft, X): racing refreshes show.
  rotateRefreshToken: () => true,
  ttl: { AccessToken: accessTokenTtl },
  features: {
    devInteractions: { enabled: false },
    userinfo: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(ctx, sub) {
    const profile = accounts.get(sub);
    return profile && { accountId: sub, claims: async () => ({ ...profile }) };
  },
});

// Test stacks run on random ports: accept any loopback better-auth callback.
provider.Client.prototype.redirectUriAllowed = function (uri) {
  return /^http:\/\/(localhost|127\.0\.0\.1):\d+\/api\/auth\/callback\/[A-Za-z0-9_-]+$/.test(uri);
};

// Every authorization must sign in the login_hint user, even when the client
// keeps our cookies. Hiding the session cookie from /auth and /auth/:uid makes
// each request start anonymous: the login prompt always runs, and resuming
// never meets a previous user (which would otherwise trigger a "log out first?" page).
const sessionCookie = provider.cookieName("session");
function dropSessionCookie(req) {
  if (!req.headers.cookie) return;
  req.headers.cookie = req.headers.cookie
    .split(/;\s*/)
    .filter((c) => { const name = c.split("=")[0]; return name !== sessionCookie && name !== `${sessionCookie}.sig`; })
    .join("; ");
}

async function interaction(req, res) {
  const { params } = await provider.interactionDetails(req, res);
  const user = userFor(params.login_hint);
  if (user.deny) {
    return provider.interactionFinished(req, res, { error: "access_denied", error_description: "The user refused" }, { mergeWithLastSubmission: false });
  }
  const accountId = user.profile.sub;
  accounts.set(accountId, user.profile);
  const grant = new provider.Grant({ accountId, clientId: params.client_id });
  grant.addOIDCScope(params.scope);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

const app = provider.callback();
const server = createServer((req, res) => {
  const { pathname } = new URL(req.url, issuer);
  if (req.method === "GET" && pathname === "/health") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  } else if (req.method === "GET" && /^\/interaction\/[^/]+$/.test(pathname)) {
    interaction(req, res).catch((err) => {
      res.writeHead(400, { "content-type": "text/plain" }).end(`interaction failed: ${err.message}\n`);
    });
  } else {
    if (pathname === "/auth" || pathname.startsWith("/auth/")) dropSessionCookie(req);
    app(req, res);
  }
});

server.listen(port, "127.0.0.1", () => console.log(`oidc-provider listening on ${issuer}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
process.on("SIGINT", () => server.close(() => process.exit(0)).closeAllConnections());
