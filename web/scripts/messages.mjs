// Compiles the message catalogs (messages/<tag>/<namespace>.json, ICU MessageFormat) into
// Lingui's compiled form (lib/i18n/compiled/<tag>/<namespace>.json, keys prefixed with the
// namespace), so the browser gets ready-to-run messages and no parser. Runs before the build,
// the typecheck and the tests; a message that does not parse fails the run, naming it.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileMessageOrThrow } from "@lingui/message-utils/compileMessage";

const SOURCE = new URL("../messages/", import.meta.url).pathname;
const OUT = new URL("../lib/i18n/compiled/", import.meta.url).pathname;

rmSync(OUT, { recursive: true, force: true });
let count = 0;
const failures = [];
for (const tag of readdirSync(SOURCE)) {
  mkdirSync(join(OUT, tag), { recursive: true });
  for (const file of readdirSync(join(SOURCE, tag)).filter((f) => f.endsWith(".json"))) {
    const namespace = file.replace(/\.json$/, "");
    const source = JSON.parse(readFileSync(join(SOURCE, tag, file), "utf8"));
    const compiled = {};
    for (const [key, message] of Object.entries(source)) {
      try {
        compiled[`${namespace}.${key}`] = compileMessageOrThrow(message);
        count += 1;
      } catch (error) {
        failures.push(`messages/${tag}/${file} ${key}: ${error.message}`);
      }
    }
    writeFileSync(join(OUT, tag, file), JSON.stringify(compiled));
  }
}
if (failures.length > 0) {
  console.error(failures.join("\n"));
  process.exit(1);
}
if (process.argv.includes("--verbose")) console.log(`compiled ${count} messages`);
