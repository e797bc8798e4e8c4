// The OpenAPI document and the API reference page, as better-auth's `openAPI()`
// plugin serves them (better-auth 1.7.7, dist/plugins/open-api/):
//   GET /api/auth/open-api/generate-schema → 200 application/json, an OpenAPI 3.1
//       document ("openapi": "3.1.1", servers [{url: <baseURL>/api/auth}], paths
//       relative to it, e.g. "/sign-up/email");
//   GET /api/auth/reference → 200 text/html, a Scalar API-reference page with
//       that document inlined as JSON.
// The reference server in shared/ does not enable that plugin, so this file
// fails against it (404): it targets Gatehouse.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import { AUTH_URL } from "./helpers.mjs";

const SCHEMA_URL = `${AUTH_URL}/open-api/generate-schema`;
const REFERENCE_URL = `${AUTH_URL}/reference`;
const BASE_PATH = "/api/auth";

/** Operations that must be documented (paths relative to /api/auth). */
const REQUIRED_OPERATIONS = [
  ["post", "/sign-up/email"],
  ["post", "/sign-in/email"],
  ["get", "/get-session"],
  ["post", "/sign-out"],
  ["get", "/list-sessions"],
  ["get", "/ok"],
  ["get", "/error"],
];
/** POSTs whose JSON body must be described, with the properties it must name. */
const REQUIRED_BODIES = {
  "/sign-up/email": ["name", "email", "password"],
  "/sign-in/email": ["email", "password"],
};
/** Operations exempt from "documents at least one 4xx". */
const NO_4XX_NEEDED = new Set(["/ok", "/error"]);

let docPromise;
/** The document (fetched once per run). Asserts 200 + JSON. */
function getDoc() {
  docPromise ??= (async () => {
    const res = await fetch(SCHEMA_URL);
    const text = await res.text();
    assert.equal(res.status, 200, `GET ${SCHEMA_URL} → ${res.status}: ${text.slice(0, 200)}`);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    return JSON.parse(text);
  })();
  return docPromise;
}

/**
 * The document's path items keyed by their path relative to /api/auth.
 * Accepts both ways of writing them: "/api/auth/sign-up/email" keys, or
 * "/sign-up/email" keys when a server's url ends in /api/auth (absolute or
 * relative url). Keys that are neither are left out.
 */
function pathsUnderAuth(doc) {
  const serverIsAuthBase = (doc.servers ?? []).some((s) => {
    if (typeof s?.url !== "string") return false;
    const pathname = new URL(s.url, "http://placeholder.invalid").pathname.replace(/\/+$/, "");
    return pathname === BASE_PATH;
  });
  const out = new Map();
  for (const [key, item] of Object.entries(doc.paths ?? {})) {
    if (key.startsWith(`${BASE_PATH}/`)) out.set(key.slice(BASE_PATH.length), item);
    else if (serverIsAuthBase) out.set(key, item);
  }
  return out;
}

/** Follow local `$ref`s ("#/components/...") until a non-reference object. */
function deref(doc, obj) {
  const seen = new Set();
  while (obj && typeof obj === "object" && typeof obj.$ref === "string") {
    const ref = obj.$ref;
    assert.ok(ref.startsWith("#/"), `only local $refs are expected, got ${ref}`);
    assert.ok(!seen.has(ref), `$ref cycle at ${ref}`);
    seen.add(ref);
    obj = ref
      .slice(2)
      .split("/")
      .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((o, k) => (o == null ? undefined : o[k]), doc);
    assert.ok(obj !== undefined, `dangling $ref ${ref}`);
  }
  return obj;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every Schema Object the document holds at the usual places, with where it is. */
function* schemaObjects(doc) {
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) yield [`components.schemas.${name}`, s];
  const content = function* (where, c) {
    for (const [type, media] of Object.entries(c ?? {})) if (media?.schema !== undefined) yield [`${where} ${type}`, media.schema];
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const p of item?.parameters ?? []) if (p?.schema !== undefined) yield [`${path} parameter ${p.name}`, p.schema];
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!op) continue;
      for (const p of op.parameters ?? []) if (p?.schema !== undefined) yield [`${method} ${path} parameter ${p.name}`, p.schema];
      yield* content(`${method} ${path} requestBody`, op.requestBody?.content);
      for (const [status, r] of Object.entries(op.responses ?? {})) yield* content(`${method} ${path} ${status}`, r?.content);
    }
  }
}

describe("open-api/generate-schema", () => {
  test("200 application/json, an OpenAPI 3.1 document", async () => {
    const doc = await getDoc();
    assert.equal(typeof doc.openapi, "string", `openapi: ${doc.openapi}`);
    assert.ok(doc.openapi.startsWith("3.1"), `openapi "${doc.openapi}" is 3.1.x`);
    assert.equal(typeof doc.info?.title, "string");
    assert.equal(typeof doc.info?.version, "string");
  });

  test("the whole document validates against the OpenAPI 3.1 schema", async () => {
    const doc = await getDoc();
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    assert.equal(res.valid, true, `invalid OpenAPI document: ${JSON.stringify(res.errors, null, 1)?.slice(0, 3000)}`);
    assert.equal(validator.version, "3.1");
  });

  // The OAS 3.1 meta-schema accepts any object as a Schema Object, so check
  // those against JSON Schema 2020-12 (the 3.1 default dialect) ourselves.
  test("every Schema Object is valid JSON Schema 2020-12", async () => {
    const doc = await getDoc();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const bad = [];
    let n = 0;
    for (const [where, schema] of schemaObjects(doc)) {
      n += 1;
      if (!ajv.validateSchema(schema)) bad.push(`${where}: ${ajv.errorsText(ajv.errors)}`);
    }
    assert.ok(n > 0, "the document holds schemas");
    assert.deepEqual(bad, [], `invalid schemas:\n${bad.join("\n")}`);
  });

  test("documents the core operations", async () => {
    const paths = pathsUnderAuth(await getDoc());
    const missing = REQUIRED_OPERATIONS.filter(([m, p]) => !paths.get(p)?.[m]).map(([m, p]) => `${m.toUpperCase()} ${p}`);
    assert.deepEqual(missing, [], `not documented (paths seen: ${[...paths.keys()].join(", ")})`);
  });

  test("sign-up and sign-in describe their JSON request body", async () => {
    const doc = await getDoc();
    const paths = pathsUnderAuth(doc);
    for (const [path, props] of Object.entries(REQUIRED_BODIES)) {
      const op = paths.get(path)?.post;
      assert.ok(op, `POST ${path} documented`);
      const body = deref(doc, op.requestBody);
      assert.ok(body, `POST ${path} has a requestBody`);
      const media = body.content?.["application/json"];
      assert.ok(media?.schema, `POST ${path} requestBody has an application/json schema`);
      const schema = deref(doc, media.schema);
      assert.equal(typeof schema, "object", `POST ${path}: schema is an object`);
      const type = Array.isArray(schema.type) ? schema.type : [schema.type];
      assert.ok(type.includes("object"), `POST ${path}: schema type is object, got ${JSON.stringify(schema.type)}`);
      for (const p of props) assert.ok(schema.properties?.[p], `POST ${path}: body schema names "${p}"`);
    }
  });

  test("every operation documents a 2xx, and all but /ok and /error a 4xx response", async () => {
    const paths = pathsUnderAuth(await getDoc());
    const problems = [];
    for (const [method, path] of REQUIRED_OPERATIONS) {
      const op = paths.get(path)?.[method];
      if (!op) {
        problems.push(`${method.toUpperCase()} ${path}: not documented`);
        continue;
      }
      const codes = Object.keys(op.responses ?? {});
      if (!codes.some((c) => /^2(\d\d|XX)$/.test(c))) problems.push(`${method.toUpperCase()} ${path}: no 2xx (${codes})`);
      if (!NO_4XX_NEEDED.has(path) && !codes.some((c) => /^4(\d\d|XX)$/.test(c))) {
        problems.push(`${method.toUpperCase()} ${path}: no 4xx (${codes})`);
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe("reference page", () => {
  test("GET /reference → 200 text/html mentioning every core path", async () => {
    const res = await fetch(REFERENCE_URL);
    const text = await res.text();
    assert.equal(res.status, 200, `GET ${REFERENCE_URL} → ${res.status}: ${text.slice(0, 200)}`);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const missing = REQUIRED_OPERATIONS.map(([, p]) => p).filter((p) => !text.includes(p));
    assert.deepEqual(missing, [], "paths not mentioned on the reference page");
  });
});
