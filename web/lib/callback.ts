/**
 * Where to go after signing in: only a path on this origin (`/account`, `/admin?page=2`),
 * returned normalised. Absolute URLs, `//host` and `/\host` (which browsers treat as `//host`),
 * and paths that normalise to `//host` (`/.//host`, `/a/..//host`) fall back to home, so a
 * link can never send a signed-in user to another site.
 */
export function safeCallback(raw: string | null | undefined, fallback = "/"): string {
  if (!raw || raw.length > 2048) return fallback;
  if (!raw.startsWith("/") || raw.startsWith("//")) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return fallback;
  const base = "http://gatehouse.invalid";
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base || url.pathname.startsWith("//")) return fallback;
  return url.pathname + url.search + url.hash;
}

/** The sign-in page's address that comes back to `path` afterwards. */
export function signInPath(path: string): string {
  const back = safeCallback(path, "/");
  return back === "/" ? "/sign-in/" : `/sign-in/?callbackURL=${encodeURIComponent(back)}`;
}

/** The page's `callbackURL` query parameter, made safe (read after mount: pages are static). */
export function currentCallback(): string {
  if (typeof window === "undefined") return "/";
  return safeCallback(new URLSearchParams(window.location.search).get("callbackURL"));
}

/** `path` carrying the current callback along (sign-in ⇄ sign-up links). */
export function withCallback(path: string, callback: string): string {
  return callback === "/" ? path : `${path}?callbackURL=${encodeURIComponent(callback)}`;
}
