// Self-test of the cookie jar against a throw-away local HTTP server
// (does not need GATEHOUSE_URL).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { CookieJar, parseSetCookie } from "./cookie-jar.mjs";

let server;
let base;
/** @type {Array<{url: string, method: string, headers: http.IncomingHttpHeaders}>} */
const seen = [];

before(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url, method: req.method, headers: req.headers });
    const u = new URL(req.url, "http://x");
    if (u.pathname === "/set") {
      res.setHeader("set-cookie", [
        "a=1%2F2; Max-Age=60; Path=/; HttpOnly; SameSite=Lax",
        "b=two; Path=/",
        "c=gone-soon; Max-Age=1",
      ]);
      res.end("ok");
    } else if (u.pathname === "/delete") {
      res.setHeader("set-cookie", [
        "a=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax",
        "b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
      ]);
      res.end("ok");
    } else if (u.pathname === "/redirect") {
      res.statusCode = 302;
      res.setHeader("location", "/landing");
      res.setHeader("set-cookie", "hop=1; Path=/");
      res.end();
    } else if (u.pathname === "/landing") {
      res.setHeader("set-cookie", "landed=yes; Path=/");
      res.end("landed");
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => new Promise((r) => server.close(r)));

test("parseSetCookie splits name, value and attributes", () => {
  const c = parseSetCookie("better-auth.session_token=abc.d%3D; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax");
  assert.equal(c.name, "better-auth.session_token");
  assert.equal(c.value, "abc.d%3D");
  assert.deepEqual(c.attributes, { "max-age": "604800", path: "/", httponly: true, samesite: "Lax" });
});

test("stores cookies, sends them back with Origin, honours deletion", async () => {
  const jar = new CookieJar(base);
  const r1 = await jar.fetch(`${base}/set`);
  assert.equal(await r1.text(), "ok");
  assert.equal(jar.lastSetCookies.length, 3);
  assert.equal(jar.lastSetCookie("a")[0].attributes["max-age"], "60");
  assert.equal(jar.get("a"), "1%2F2", "values are kept verbatim (still encoded)");

  await jar.fetch(`${base}/echo`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  const echoed = seen.at(-1);
  assert.equal(echoed.method, "POST");
  assert.equal(echoed.headers.origin, base);
  assert.equal(echoed.headers.cookie, "a=1%2F2; b=two; c=gone-soon");

  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(jar.has("c"), false, "Max-Age=1 expired locally");

  await jar.fetch(`${base}/delete`);
  assert.deepEqual(jar.names(), [], "Max-Age=0 and past Expires delete");
  await jar.fetch(`${base}/echo`);
  assert.equal(seen.at(-1).headers.cookie, undefined, "no Cookie header when the jar is empty");
});

test("follows redirects by hand, keeping cookies from every hop", async () => {
  const jar = new CookieJar(base);
  const res = await jar.fetch(`${base}/redirect`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "landed");
  assert.deepEqual(jar.names().sort(), ["hop", "landed"]);
  assert.deepEqual(jar.lastSetCookies, ["hop=1; Path=/", "landed=yes; Path=/"]);

  const manual = await jar.fetch(`${base}/redirect`, { redirect: "manual" });
  assert.equal(manual.status, 302);
  assert.equal(manual.headers.get("location"), "/landing");
});

test("origin can be overridden or suppressed", async () => {
  const evil = new CookieJar(base, { origin: "http://evil.example" });
  await evil.fetch(`${base}/echo`);
  assert.equal(seen.at(-1).headers.origin, "http://evil.example");
  const none = new CookieJar(base, { origin: null });
  await none.fetch(`${base}/echo`);
  assert.equal(seen.at(-1).headers.origin, undefined);
});
