/**
 * Whether a guarded-endpoint pattern from `GET /api/auth/captcha` covers `path`: exact, or with
 * `*` standing for any run of characters — the gateway's reading (gateway/src/captcha.rs), so
 * the widget shows exactly where the server will want a token.
 */
export function coversEndpoint(pattern: string, path: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === path;
  const [head = "", ...rest] = parts;
  if (!path.startsWith(head)) return false;
  let remaining = path.slice(head.length);
  for (const [i, part] of rest.entries()) {
    if (i === rest.length - 1) return remaining.endsWith(part);
    const at = remaining.indexOf(part);
    if (at < 0) return false;
    remaining = remaining.slice(at + part.length);
  }
  return true;
}
