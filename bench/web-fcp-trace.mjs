// What the renderer's main thread does before the first contentful paint of a cold load
// (a new browser context each run), from a Chrome trace (CDP Tracing): time per kind of task
// and each script evaluated before the paint.
//
//   GATEHOUSE_URL=http://localhost:3000 RUNS=5 node bench/web-fcp-trace.mjs   (from the repo root)
//
// Uses web/'s playwright-core and Debian's Chromium. Tracing slows the page: compare the
// shares, not the times, with bench/web-fcp.mjs's.
import { createRequire } from "node:module";
const require = createRequire(new URL("../web/package.json", import.meta.url));
const { chromium } = require("@playwright/test");
const base = process.env.GATEHOUSE_URL ?? "http://localhost:3000";
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
const runs = Number(process.env.RUNS ?? 5);
const agg = {};
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", { categories: "devtools.timeline,blink.user_timing,loading,v8.execute,disabled-by-default-devtools.timeline", transferMode: "ReportEvents" });
  await page.goto(base + "/sign-in/", { waitUntil: "load" });
  await page.waitForTimeout(300);
  await cdp.send("Tracing.end");
  await done;
  const fcp = events.find((e) => e.name === "firstContentfulPaint");
  const nav = events.find((e) => e.name === "navigationStart") ?? events.find((e) => e.name === "fetchStart");
  const t0 = nav?.ts ?? 0;
  const fcpAt = fcp ? (fcp.ts - t0) / 1000 : NaN;
  const before = events.filter((e) => e.ph === "X" && e.ts < (fcp?.ts ?? 0) && e.ts >= t0 && ["EvaluateScript", "v8.compile", "v8.compileModule", "FunctionCall", "ParseHTML", "UpdateLayoutTree", "Layout", "Paint", "ParseAuthorStyleSheet", "v8.run", "TimerFire", "RunMicrotasks", "EventDispatch"].includes(e.name));
  const sums = {};
  for (const e of before) sums[e.name] = (sums[e.name] ?? 0) + (e.dur ?? 0) / 1000;
  const scripts = before.filter((e) => e.name === "EvaluateScript").map((e) => `${(e.args?.data?.url ?? "").split("/").pop()}:${((e.dur ?? 0) / 1000).toFixed(1)}`);
  console.log(`run ${i}: FCP ${fcpAt.toFixed(0)} ms;`, Object.entries(sums).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", "));
  console.log("   scripts evaluated before FCP:", scripts.join(" "));
  for (const [k, v] of Object.entries(sums)) agg[k] = (agg[k] ?? 0) + v / runs;
  await context.close();
}
console.log("mean ms before FCP:", Object.entries(agg).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", "));
await browser.close();
