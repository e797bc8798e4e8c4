// Our outbound deliveries, verified the way sellers verify them: an organization's owner
// registers two endpoints through /api/billing (one signing as Standard Webhooks does, one as
// the payments platform does, for receivers on its SDKs), a delivery of the payments platform
// comes in for that organization, and a real HTTP receiver here checks each delivery with the
// Standard Webhooks reference library (standardwebhooks 1.1.1) and the payments platform's
// SDKs (@polar-sh/sdk 1.0.1, and 0.49.0 as @polar-sh/better-auth still uses it).
// GATEHOUSE_URL is the stack's origin (started with BILLING_WEBHOOK_ALLOWED_NETWORKS letting
// it reach loopback); POLAR_WEBHOOK_SECRET the intake's secret.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { webhooks as polarV1 } from "@polar-sh/sdk/2026-10";
import { validateEvent as polarV0 } from "polar-sdk-v0/webhooks";

const base = process.env.GATEHOUSE_URL;
const intakeSecret = process.env.POLAR_WEBHOOK_SECRET;
if (!base || !intakeSecret) throw new Error("set GATEHOUSE_URL and POLAR_WEBHOOK_SECRET");
const fixtures = new URL("../../services/billing-webhook/tests/fixtures/polar/", import.meta.url);

/** A JSON request as the web app sends it: same origin, the session cookie. */
async function call(method, path, { body, cookie } = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      origin: base,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(cookie ? { cookie } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null, response };
}

/** A signed-in owner of a new, active organization. */
async function owner() {
  const email = `seller-${randomUUID()}@example.com`;
  const signUp = await call("POST", "/api/auth/sign-up/email", {
    body: { name: "Seller", email, password: "Correct-Horse-9" },
  });
  assert.equal(signUp.status, 200, JSON.stringify(signUp.json));
  const cookie = signUp.response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const slug = `seller-${randomUUID().slice(0, 8)}`;
  const created = await call("POST", "/api/auth/organization/create", {
    body: { name: "Seller", slug },
    cookie,
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  return { cookie, organizationId: created.json.id };
}

/** An HTTP receiver on loopback keeping each request's raw bytes and headers, answering 204. */
function receiver() {
  const seen = [];
  const waiting = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      seen.push({ path: request.url, headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(204).end();
      for (const wake of waiting.splice(0)) wake();
    });
  });
  const listening = new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    seen,
    server,
    async url(path) {
      await listening;
      return `http://127.0.0.1:${server.address().port}${path}`;
    },
    /** The requests to `path`, once there are `count` of them (10 s at most). */
    async requests(path, count) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = seen.filter((r) => r.path === path);
        if (found.length >= count) return found;
        assert.ok(Date.now() < deadline, `${count} requests to ${path}; got ${found.length}`);
        await new Promise((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

const hooks = receiver();
after(() => hooks.server.close());

/** The payments platform's delivery of `body`, signed as it signs (the secret's text as key). */
async function deliver(body) {
  const id = randomUUID();
  const when = new Date();
  const signer = new Webhook(Buffer.from(intakeSecret, "utf-8").toString("base64"));
  const response = await fetch(`${base}/api/billing/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(when.getTime() / 1000)),
      "webhook-signature": signer.sign(id, when, body),
    },
    body,
  });
  assert.equal(response.status, 202, await response.text());
}

test("sellers verify our deliveries with the Standard Webhooks library and the platform's SDKs", async () => {
  const { cookie, organizationId } = await owner();
  const register = async (path, polarSigning) => {
    const created = await call("POST", "/api/billing/endpoints", {
      body: { url: await hooks.url(path), eventTypes: ["order.paid"], polarSigning },
      cookie,
    });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    assert.equal(created.json.polarSigning, polarSigning);
    const secret = await call("GET", `/api/billing/endpoints/${created.json.id}/secret`, { cookie });
    assert.equal(secret.status, 200);
    return secret.json.secret;
  };
  const standardSecret = await register("/standard", false);
  const polarSecret = await register("/polar", true);

  const order = JSON.parse(readFileSync(new URL("order.paid.json", fixtures), "utf-8"));
  order.data.metadata = { referenceId: organizationId };
  const body = JSON.stringify(order);
  await deliver(body);

  const [standard] = await hooks.requests("/standard", 1);
  const [polar] = await hooks.requests("/polar", 1);
  for (const delivery of [standard, polar]) {
    // The payments platform's bytes, as they came in.
    assert.equal(delivery.body.toString("utf-8"), body);
    assert.equal(delivery.headers["content-type"], "application/json");
    assert.match(delivery.headers["webhook-id"], /^msg_/);
  }
  assert.notEqual(standard.headers["webhook-id"], polar.headers["webhook-id"], "one id per endpoint");

  // Standard Webhooks proper: the generic library with the secret as given, and SDK 1.x
  // (which also tries the base64-decoded key).
  const verified = new Webhook(standardSecret).verify(standard.body, standard.headers);
  assert.equal(verified.type, "order.paid");
  const v1 = await polarV1.validateEvent(standard.body, standard.headers, standardSecret);
  assert.equal(v1.type, "order.paid");
  assert.throws(
    () => polarV0(standard.body, standard.headers, standardSecret),
    /No matching signature found/,
    "SDK 0.x keys with the secret's text only",
  );

  // Signed the payments platform's way: both SDK generations verify with the secret as shown,
  // and the generic library once the text is base64-encoded (reference §2.1).
  const fromV1 = await polarV1.validateEvent(polar.body, polar.headers, polarSecret);
  assert.equal(fromV1.data.id, order.data.id);
  const fromV0 = polarV0(polar.body, polar.headers, polarSecret);
  assert.equal(fromV0.type, "order.paid");
  new Webhook(Buffer.from(polarSecret, "utf-8").toString("base64")).verify(polar.body, polar.headers);
  assert.throws(() => new Webhook(polarSecret).verify(polar.body, polar.headers));

  // A tampered body or another endpoint's secret does not verify.
  assert.throws(() => new Webhook(standardSecret).verify(Buffer.from(`${body} `), standard.headers));
  await assert.rejects(polarV1.validateEvent(polar.body, polar.headers, standardSecret));
});

test("after a rotation both secrets verify the same delivery", async () => {
  const { cookie } = await owner();
  const created = await call("POST", "/api/billing/endpoints", {
    body: { url: await hooks.url("/rotated") },
    cookie,
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const id = created.json.id;
  const before = (await call("GET", `/api/billing/endpoints/${id}/secret`, { cookie })).json.secret;
  const rotated = await call("POST", `/api/billing/endpoints/${id}/rotate-secret`, { body: {}, cookie });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
  const secrets = (await call("GET", `/api/billing/endpoints/${id}/secret`, { cookie })).json;
  assert.equal(secrets.previousSecret, before);
  assert.notEqual(secrets.secret, before);

  const sent = await call("POST", `/api/billing/endpoints/${id}/test`, { body: {}, cookie });
  assert.equal(sent.status, 200, JSON.stringify(sent.json));
  const [delivery] = await hooks.requests("/rotated", 1);
  assert.equal(delivery.headers["webhook-id"], sent.json.deliveryId);
  for (const secret of [secrets.secret, before]) {
    const event = new Webhook(secret).verify(delivery.body, delivery.headers);
    assert.equal(event.type, "webhook.test");
  }
});
