/** "Chrome on Linux" from a User-Agent header; enough to recognise one's own devices. */
export function describeAgent(ua: string | null | undefined): string {
  if (!ua) return "Unknown device";
  const browser = (
    [
      [/Edg\//, "Edge"],
      [/OPR\//, "Opera"],
      [/Firefox\//, "Firefox"],
      [/Chrome\/|Chromium\//, "Chrome"],
      [/Safari\//, "Safari"],
      [/node|undici/i, "Script"],
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
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? "Unknown device";
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDate(value: string | Date | null | undefined): string {
  if (!value) return "—";
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? "—" : dateTime.format(date);
}
