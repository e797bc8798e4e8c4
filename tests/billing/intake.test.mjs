// POST /api/billing/webhooks against a running Gatehouse, each delivery signed by the Standard
// Webhooks reference library (standardwebhooks 1.1.1) exactly as the payments platform's SDK
// keys it: the secret's text, base64-encoded for the library (billing-webhooks reference §2.1,
// §2.2). GATEHOUSE_URL is the stack's origin; POLAR_WEBHOOK_SECRET the secret it was given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";

const base = process.env.GATEHOUSE_URL;
const secret = process.env.POLAR_WEBHOOK_SECRET;
if (!base || !secret) throw new Error("set GATEHOUSE_URL and POLAR_WEBHOOK_SECRET");
const url = `${base}/api/billing/webhooks`;
const fixtures = new URL("../../services/billing-webhook/tests/fixtures/polar/", import.meta.url);

// As @polar-sh/sdk's validateEvent does: the raw secret, base64-encoded, is the library's key.
const polar = new Webhook(Buffer.from(secret, "utf-8").toString("base64"));

/** The fixture as the payments platform sends it: compact JSON. */
const fixture = (name) => JSON.stringify(JSON.parse(readFileSync(new URL(`${name}.json`, fixtures), "utf-8")));

async function deliver(body, { id = randomUUID(), when = new Date(), signer = polar, headers = {} } = {}) {
  const signature = signer.sign(id, when, body);
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "polar.sh webhooks",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(when.getTime() / 1000)),
      "webhook-signature": signature,
      ...headers,
    },
    body,
  });
  return { status: response.status, body: await response.json() };
}

test("every fixture of the reference is accepted once, and its retry recognised", async () => {
  const names = readdirSync(fixtures).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5));
  assert.equal(names.length, 27);
  for (const name of names) {
    const id = randomUUID();
    const body = fixture(name);
    const first = await deliver(body, { id });
    assert.equal(first.status, 202, `${name}: ${JSON.stringify(first.body)}`);
    assert.equal(first.body.duplicate, false);
    // The sender's retry: same id and bytes, a new timestamp and signature.
    const retry = await deliver(body, { id, when: new Date(Date.now() + 1000) });
    assert.equal(retry.status, 200, name);
    assert.deepEqual(retry.body, { id: first.body.id, duplicate: true });
  }
});

test("a rotation overlap: any v1 entry matching is enough", async () => {
  const body = fixture("order.paid");
  const id = randomUUID();
  const when = new Date();
  const old = new Webhook(Buffer.from("whsec_the-previous-secret").toString("base64")).sign(id, when, body);
  const current = polar.sign(id, when, body);
  const reply = await deliver(body, { id, when, headers: { "webhook-signature": `${old} ${current}` } });
  assert.equal(reply.status, 202, JSON.stringify(reply.body));
});

test("refusals carry the reference library's own messages", async () => {
  const body = fixture("subscription.created");
  // A generic sender keying with the base64-decoded part is not the payments platform.
  const generic = new Webhook(Buffer.from(secret.replace(/^whsec_/, ""), "base64"), { format: "raw" });
  const cases = [
    [{ signer: generic }, "No matching signature found"],
    [{ when: new Date(Date.now() - 6 * 60 * 1000) }, "Message timestamp too old"],
    [{ when: new Date(Date.now() + 6 * 60 * 1000) }, "Message timestamp too new"],
    [{ headers: { "webhook-timestamp": "soon" } }, "Invalid Signature Headers"],
  ];
  for (const [options, message] of cases) {
    const reply = await deliver(body, options);
    assert.equal(reply.status, 403, message);
    assert.equal(reply.body.message, message);
    // The same check in the reference library agrees.
    assert.throws(() => polar.verify(body, {
      "webhook-id": "x",
      "webhook-timestamp": String(Math.floor((options.when ?? new Date()).getTime() / 1000)),
      "webhook-signature": (options.signer ?? polar).sign("x", options.when ?? new Date(), body),
      ...(options.headers ?? {}),
    }), { message });
  }
  const missing = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  assert.equal(missing.status, 403);
  assert.deepEqual(await missing.json(), { message: "Missing required headers", code: "MISSING_REQUIRED_HEADERS" });
});
