// First contentful paint of the web app's sign-in page under headless Chromium, read from the
// browser's Performance API: cold (a new browser context each time: empty cache, new
// connection) and warm (a reload in the same context: hashed assets from the cache).
//
//   GATEHOUSE_URL=http://localhost:3000 RUNS=15 node bench/web-fcp.mjs   (run from the repo root)
//
// Uses web/'s playwright-core and Debian's Chromium (CHROMIUM_PATH).
import { createRequire } from "node:module";

const require = createRequire(new URL("../web/package.json", import.meta.url));
const { chromium } = require("@playwright/test");
const base = process.env.GATEHOUSE_URL ?? "http://localhost:3000";
const runs = Number(process.env.RUNS ?? 15);
const path = process.env.PAGE ?? "/sign-in/";

const fcp = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve) => {
        const seen = performance.getEntriesByName("first-contentful-paint")[0];
        if (seen) return resolve(seen.startTime);
        new PerformanceObserver((list) => {
          const entry = list.getEntriesByName("first-contentful-paint")[0];
          if (entry) resolve(entry.startTime);
        }).observe({ type: "paint", buffered: true });
      }),
  );
const transferred = (page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .concat(performance.getEntriesByType("navigation"))
      .reduce((sum, e) => sum + (e.transferSize ?? 0), 0),
  );

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
const cold = [];
const warm = [];
const bytes = { cold: 0, warm: 0 };
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base + path, { waitUntil: "load" });
  cold.push(await fcp(page));
  bytes.cold = await transferred(page);
  await page.reload({ waitUntil: "load" });
  warm.push(await fcp(page));
  bytes.warm = await transferred(page);
  await context.close();
}
await browser.close();

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5).toFixed(0), p90: at(0.9).toFixed(0), min: s[0].toFixed(0), max: s[s.length - 1].toFixed(0) };
};
console.log(`first contentful paint of ${path}, ${runs} runs each (ms)`);
console.table({ cold: { ...stats(cold), "bytes transferred": bytes.cold }, warm: { ...stats(warm), "bytes transferred": bytes.warm } });
