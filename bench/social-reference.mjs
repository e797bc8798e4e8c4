// The reference better-auth (1.7.7) with one generic OpenID provider, for bench/run-social.sh:
// the same provider Gatehouse's `test-oidc` points at, through better-auth's genericOAuth
// plugin (discovery, so its idToken sign-in verifies against the provider's JWKS).
// Run from a copy of shared/reference/better-auth-server (its node_modules).
//   PORT (3100), DISCOVERY_URL (the provider's), DB_PATH (":memory:")
import http from "node:http";
import Database from "better-sqlite3";
import { betterAuth } from "better-auth";
import { toNodeHandler } from "better-auth/node";
import { getMigrations } from "better-auth/db/migration";
import { genericOAuth } from "better-auth/plugins";

const PORT = Number(process.env.PORT || 3100);
const BASE_URL = `http://localhost:${PORT}`;
const db = new Database(process.env.DB_PATH || ":memory:");
db.pragma("journal_mode = WAL");

const auth = betterAuth({
  baseURL: BASE_URL,
  secret: "reference-social-bench-secret-0123456789abcdef",
  database: db,
  emailAndPassword: { enabled: true },
  logger: { level: process.env.LOG_LEVEL || "error" },
  plugins: [
    genericOAuth({
      config: [
        {
          providerId: "test-oidc",
          clientId: "gatehouse-test",
          clientSecret: "gatehouse-test-secret",
          discoveryUrl: process.env.DISCOVERY_URL,
          // As Gatehouse asks: better-auth's default (`openid` alone) finds no address.
          scopes: ["openid", "email", "profile"],
          pkce: true,
        },
      ],
    }),
  ],
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
const handler = toNodeHandler(auth);
const server = http.createServer((req, res) => {
  if (req.url === "/healthz") return res.writeHead(200).end("ok");
  return handler(req, res);
});
server.keepAliveTimeout = 65_000;
server.listen(PORT, "127.0.0.1", () => console.log(`[reference-social] listening on ${BASE_URL}`));
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
