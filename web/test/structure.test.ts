// @vitest-environment node
/**
 * The app's shape, so it cannot drift back: every page the same pattern, data read through
 * the hooks modules only, one block for a read that failed. Each rule lists its offenders.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The TypeScript files under `dir`, as paths from web/ with forward slashes. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => `${dir}/${file.split(sep).join("/")}`);
}

const read = (file: string) => readFileSync(join(root, file), "utf8");
const app = sources("app");
const code = [...app, ...sources("components"), ...sources("lib")];

describe("the app's structure", () => {
  it("makes every page a server module with its title, rendering a screen", () => {
    const pages = app.filter((file) => file.endsWith("page.tsx"));
    expect(pages.length).toBeGreaterThanOrEqual(14);
    // A client page cannot export metadata: the client part lives in components/.
    const offenders = pages.filter((file) => {
      const text = read(file);
      return !/^export const metadata: Metadata = /m.test(text) || /^["']use client["']/m.test(text);
    });
    expect(offenders).toEqual([]);
  });

  it("reads data through the hooks modules only", () => {
    // The hooks modules: each area's components/<area>/hooks.ts, and the session's own.
    const hooksModule = (file: string) => /^components\/[a-z-]+\/hooks\.ts$/.test(file) || file === "lib/session.ts";
    const swrConfig = /^import \{ SWRConfig \} from "swr";$/m;
    const offenders = code.filter((file) => {
      if (hooksModule(file)) return false;
      // The app's one SWR configuration may import that, and nothing else of SWR.
      const text = file === "components/Providers.tsx" ? read(file).replace(swrConfig, "") : read(file);
      return /from\s+["']swr(\/[^"']*)?["']/.test(text) || /\buseSWR\b/.test(text);
    });
    expect(offenders).toEqual([]);
  });

  it("shows a failed read with the one LoadError block", () => {
    const offenders = code.filter((file) => file !== "components/LoadError.tsx" && /We could not load/.test(read(file)));
    expect(offenders).toEqual([]);
  });
});
