import { format } from "./i18n";
import { t } from "./i18n/common";

/** "Chrome on Linux" from a User-Agent header; enough to recognise one's own devices. */
export function describeAgent(ua: string | null | undefined): string {
  if (!ua) return t("unknownDevice");
  const browser = (
    [
      [/Edg\//, "Edge"],
      [/OPR\//, "Opera"],
      [/Firefox\//, "Firefox"],
      [/Chrome\/|Chromium\//, "Chrome"],
      [/Safari\//, "Safari"],
      [/node|undici/i, t("script")],
    ] as const
  ).find(([re]) => re.test(ua))?.[1];
  const os = (
    [
      [/Android/, "Android"],
      [/iPhone|iPad|iOS/, "iOS"],
      [/Windows/, "Windows"],
      [/Mac OS X|Macintosh/, "macOS"],
      [/Linux/, "Linux"],
    ] as const
  ).find(([re]) => re.test(ua))?.[1];
  if (browser && os) return t("deviceOn", { browser, os });
  return browser ?? os ?? t("unknownDevice");
}

export function formatDate(value: string | Date | null | undefined): string {
  if (!value) return "—";
  const date = value instanceof Date ? value : new Date(value);
  // In the app's language, not the browser's: a German page shows German dates.
  return Number.isNaN(date.getTime()) ? "—" : format.date(date, { dateStyle: "medium", timeStyle: "short" });
}
