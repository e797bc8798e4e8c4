// @vitest-environment node
/**
 * The catalogs (messages/<tag>/<namespace>.json): every language has every English message,
 * nothing English lacks, the same placeholders and the same tags, and every message parses.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileMessageOrThrow, type CompiledMessage } from "@lingui/message-utils/compileMessage";
import { LANGUAGES } from "@/lib/i18n/languages";

const root = fileURLToPath(new URL("../messages/", import.meta.url));
const catalog = (tag: string, namespace: string): Record<string, string> =>
  JSON.parse(readFileSync(join(root, tag, `${namespace}.json`), "utf8"));
const namespaces = readdirSync(join(root, "en")).map((file) => file.replace(/\.json$/, ""));

/** The names a message takes (`{name}`, `{count, plural, …}`), through plural and select branches. */
function placeholders(message: CompiledMessage, into = new Set<string>()): Set<string> {
  for (const token of message) {
    if (typeof token === "string") continue;
    const [name, , format] = token;
    into.add(name);
    if (format && typeof format === "object") {
      for (const [key, branch] of Object.entries(format)) if (key !== "offset" && Array.isArray(branch)) placeholders(branch, into);
    }
  }
  return into;
}
const tags = (message: string) => [...message.matchAll(/<(\w+)>/g)].map((m) => m[1]).sort();

describe("the message catalogs", () => {
  it("has a folder for each of the app's languages, and no other", () => {
    expect(readdirSync(root).sort()).toEqual(LANGUAGES.map((l) => l.tag).sort());
    expect(namespaces.length).toBeGreaterThanOrEqual(9);
  });

  for (const { tag } of LANGUAGES.filter((l) => l.tag !== "en")) {
    it(`has every message in ${tag}, with English's placeholders and tags`, () => {
      const problems: string[] = [];
      for (const namespace of namespaces) {
        const english = catalog("en", namespace);
        let translated: Record<string, string>;
        try {
          translated = catalog(tag, namespace);
        } catch {
          problems.push(`${namespace}: no messages/${tag}/${namespace}.json`);
          continue;
        }
        for (const key of Object.keys(english)) {
          const message = translated[key];
          if (message === undefined || message.trim() === "") {
            problems.push(`${namespace}.${key}: missing`);
            continue;
          }
          const want = [...placeholders(compileMessageOrThrow(english[key] ?? ""))].sort();
          const have = [...placeholders(compileMessageOrThrow(message))].sort();
          if (want.join() !== have.join()) problems.push(`${namespace}.${key}: placeholders ${have} instead of ${want}`);
          if (tags(english[key] ?? "").join() !== tags(message).join()) problems.push(`${namespace}.${key}: tags differ`);
        }
        for (const key of Object.keys(translated)) if (!(key in english)) problems.push(`${namespace}.${key}: not in English`);
      }
      expect(problems).toEqual([]);
    });
  }

  it("parses every English message", () => {
    for (const namespace of namespaces) {
      for (const [key, message] of Object.entries(catalog("en", namespace))) {
        expect(() => compileMessageOrThrow(message), `${namespace}.${key}`).not.toThrow();
      }
    }
  });
});
