// After `next build`: precompress the export (the gateway serves `.br`/`.gz` siblings to
// clients that accept them) and hold each page to its JavaScript budget (issue 9: the
// sign-in page ≤ 150 kB gzipped). Prints every page's JavaScript, gzipped, for bench/RESULTS.md.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const OUT = new URL("../out/", import.meta.url).pathname;
const BUDGET_KB = { "sign-in": 150 };
const COMPRESSIBLE = /\.(js|css|html|txt|json|svg|map)$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

// The hashes of every inline script of every page (Next's static export inlines its bootstrap
// and page data): the gateway allows exactly these in the pages' Content-Security-Policy
// (`script-src 'self' 'sha256-…'`), so no other inline script can run.
const inlineHashes = new Set();
for (const path of files(OUT)) {
  if (!path.endsWith(".html")) continue;
  const html = readFileSync(path, "utf8");
  for (const [, attributes, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (/\ssrc=/.test(attributes) || body.length === 0) continue;
    inlineHashes.add(`'sha256-${createHash("sha256").update(body, "utf8").digest("base64")}'`);
  }
}
writeFileSync(join(OUT, "csp-script-hashes.txt"), [...inlineHashes].sort().join("\n") + "\n");

// `--sizes-only`: the table without compressing again (bench/run-web.sh).
const sizesOnly = process.argv.includes("--sizes-only");
let compressed = 0;
for (const path of sizesOnly ? [] : files(OUT)) {
  if (!COMPRESSIBLE.test(path) || statSync(path).size < 1024) continue;
  const body = readFileSync(path);
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
  writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  compressed += 1;
}

const gzipKB = (path) => gzipSync(readFileSync(path), { level: 9 }).length / 1024;
const pages = [...files(OUT)].filter((p) => p.endsWith("index.html"));
const rows = [];
let failed = false;
for (const page of pages) {
  const html = readFileSync(page, "utf8");
  // `noModule` scripts are legacy polyfills that modern browsers neither fetch nor run.
  const tags = [...html.matchAll(/<script[^>]*>/g)].map((m) => m[0]).filter((tag) => !/\snoModule/i.test(tag));
  const scripts = [...new Set(tags.map((tag) => /src="([^"]+\.js)"/.exec(tag)?.[1]).filter(Boolean))];
  const kb = scripts.reduce((sum, src) => sum + gzipKB(join(OUT, src.replace(/^\//, ""))), 0);
  const name = relative(OUT, page).replace(/\/?index\.html$/, "") || "home";
  const budget = BUDGET_KB[name];
  if (budget !== undefined && kb > budget) failed = true;
  rows.push({ page: `/${name === "home" ? "" : `${name}/`}`, scripts: scripts.length, "js gzip kB": kb.toFixed(1), budget: budget ?? "" });
}
rows.sort((a, b) => a.page.localeCompare(b.page));
if (!sizesOnly) console.log(`precompressed ${compressed} files (.br, .gz)`);
console.table(rows);
if (failed) {
  console.error("JavaScript budget exceeded (see the table above)");
  process.exit(1);
}
