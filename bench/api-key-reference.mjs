// The reference better-auth (1.7.7, @better-auth/api-key 1.7.5) for bench/run-api-key.sh: the
// same plugins as shared/reference/better-auth-server/server.mjs (username, admin, organization
// with teams, apiKey with enableSessionForAPIKeys), with one change: the api-key plugin's own
// rate limit off (`rateLimit: { enabled: false }`). Its default, 10 requests a day per key,
// would refuse the benchmark by its eleventh request, and a key's `rateLimitEnabled` is a
// server-only field that create refuses over HTTP. With the limit off the plugin still writes
// the key's row on every verification (`lastRequest`, then `updatedAt`): that is what is
// measured. With JWT=1 it also runs the jwt plugin with its defaults (EdDSA, 15-minute tokens,
// get-session's `set-auth-jwt` header on), for bench/run-jwt.sh; with TWO_FACTOR=1 the twoFactor
// plugin with its defaults, for bench/run-two-factor.sh.
// Run from a copy of shared/reference/better-auth-server (its node_modules).
//   PORT (3410), DB_PATH (":memory:"; a file is opened in WAL mode, as server.mjs does), JWT,
//   TWO_FACTOR
import http from "node:http";
import Database from "better-sqlite3";
import { betterAuth } from "better-auth";
import { toNodeHandler } from "better-auth/node";
import { getMigrations } from "better-auth/db/migration";
import { username, admin, organization, jwt, twoFactor } from "better-auth/plugins";
import { apiKey } from "@better-auth/api-key";

const PORT = Number(process.env.PORT || 3410);
const BASE_URL = `http://localhost:${PORT}`;
const DB_PATH = process.env.DB_PATH || ":memory:";
const db = new Database(DB_PATH);
if (DB_PATH !== ":memory:") db.pragma("journal_mode = WAL");

const auth = betterAuth({
  appName: "better-auth reference",
  baseURL: BASE_URL,
  basePath: "/api/auth",
  secret: "reference-api-key-bench-secret-0123456789abcdef",
  database: db,
  trustedOrigins: [BASE_URL, `http://127.0.0.1:${PORT}`],
  telemetry: { enabled: false },
  logger: { level: process.env.LOG_LEVEL || "error" },
  rateLimit: { enabled: false },
  session: { cookieCache: { enabled: false } },
  emailAndPassword: { enabled: true, requireEmailVerification: false },
  plugins: [
    username(),
    admin(),
    organization({ teams: { enabled: true } }),
    apiKey({ enableSessionForAPIKeys: true, rateLimit: { enabled: false } }),
    ...(process.env.JWT === "1" ? [jwt()] : []),
    ...(process.env.TWO_FACTOR === "1" ? [twoFactor()] : []),
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
server.listen(PORT, "127.0.0.1", () =>
  console.log(`[reference-api-key] listening on ${BASE_URL} (db=${DB_PATH})`)
);
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
