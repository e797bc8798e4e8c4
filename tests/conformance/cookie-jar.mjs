// A tiny cookie jar + fetch wrapper that makes Node's fetch behave like one
// browser talking to one site. One CookieJar = one simulated browser.
//
//  * every `set-cookie` header of every response (including each hop of a
//    redirect chain) is stored; `Max-Age<=0` or an `Expires` in the past
//    deletes the cookie; cookies with a positive Max-Age expire locally;
//  * stored cookies are sent back in a `Cookie` header;
//  * an `Origin` header is always sent (the site's own origin by default),
//    as a browser does for fetch() POSTs;
//  * the raw Set-Cookie strings of the last response are kept in
//    `jar.lastSetCookies` (all hops of a followed redirect chain), and the
//    last Response in `jar.lastResponse`, so tests can assert attributes.
//
// Domain/Path scoping is deliberately ignored: the suites talk to a single
// origin and better-auth only ever uses Path=/.
//
// Usage with the official client:
//   const jar = new CookieJar(BASE_URL);
//   createAuthClient({ baseURL: BASE_URL, fetchOptions: { customFetchImpl: jar.fetch } });

/**
 * Parse one Set-Cookie header string.
 * @param {string} header e.g. "a=b; Max-Age=10; Path=/; HttpOnly; SameSite=Lax"
 * @returns {{name: string, value: string, attributes: Record<string, string|true>, raw: string}}
 *   `attributes` keys are lower-cased attribute names ("max-age", "path",
 *   "httponly", "samesite", "secure", "domain", "expires", "partitioned");
 *   flag attributes have the value `true`.
 */
export function parseSetCookie(header) {
  const parts = header.split(";");
  const first = parts.shift() ?? "";
  const eq = first.indexOf("=");
  const name = (eq >= 0 ? first.slice(0, eq) : first).trim();
  const value = eq >= 0 ? first.slice(eq + 1).trim() : "";
  /** @type {Record<string, string|true>} */
  const attributes = {};
  for (const part of parts) {
    const p = part.trim();
    if (!p) continue;
    const i = p.indexOf("=");
    if (i < 0) attributes[p.toLowerCase()] = true;
    else attributes[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim();
  }
  return { name, value, attributes, raw: header };
}

export class CookieJar {
  /**
   * @param {string} siteUrl the site this browser talks to (used for the
   *   default Origin header, and to resolve relative redirects)
   * @param {{origin?: string|null}} [opts] origin: override the Origin header
   *   value; `null` sends no Origin header at all.
   */
  constructor(siteUrl, opts = {}) {
    this.siteUrl = siteUrl;
    this.origin = opts.origin === undefined ? new URL(siteUrl).origin : opts.origin;
    /** @type {Map<string, {value: string, expiresAt: number|null}>} */
    this.cookies = new Map();
    /** @type {string[]} raw Set-Cookie strings of the last response (all redirect hops) */
    this.lastSetCookies = [];
    /** @type {Response|null} */
    this.lastResponse = null;
    // bound so it can be handed to customFetchImpl directly
    this.fetch = this.fetch.bind(this);
  }

  /** Store the cookies of one response. */
  store(response) {
    const list =
      typeof response.headers.getSetCookie === "function"
        ? response.headers.getSetCookie()
        : [];
    for (const raw of list) {
      const { name, value, attributes } = parseSetCookie(raw);
      if (!name) continue;
      let expiresAt = null;
      let deleted = false;
      if (attributes["max-age"] !== undefined) {
        const maxAge = Number(attributes["max-age"]);
        if (Number.isFinite(maxAge)) {
          if (maxAge <= 0) deleted = true;
          else expiresAt = Date.now() + maxAge * 1000;
        }
      } else if (typeof attributes.expires === "string") {
        const t = Date.parse(attributes.expires);
        if (Number.isFinite(t)) {
          if (t <= Date.now()) deleted = true;
          else expiresAt = t;
        }
      }
      if (deleted) this.cookies.delete(name);
      else this.cookies.set(name, { value, expiresAt });
    }
    return list;
  }

  #purgeExpired() {
    const now = Date.now();
    for (const [name, c] of this.cookies) {
      if (c.expiresAt !== null && c.expiresAt <= now) this.cookies.delete(name);
    }
  }

  /** The raw (still percent-encoded) value of a stored cookie, or undefined. */
  get(name) {
    this.#purgeExpired();
    return this.cookies.get(name)?.value;
  }

  has(name) {
    return this.get(name) !== undefined;
  }

  /** Put a cookie in the jar by hand (value sent as given). */
  set(name, value) {
    this.cookies.set(name, { value, expiresAt: null });
  }

  delete(name) {
    this.cookies.delete(name);
  }

  clear() {
    this.cookies.clear();
  }

  /** Names of the cookies currently held. */
  names() {
    this.#purgeExpired();
    return [...this.cookies.keys()];
  }

  /** The `Cookie` request header this browser would send ("" if none). */
  cookieHeader() {
    this.#purgeExpired();
    return [...this.cookies].map(([n, c]) => `${n}=${c.value}`).join("; ");
  }

  /** A new jar (another tab of the same browser profile) with copies of the cookies. */
  clone() {
    const j = new CookieJar(this.siteUrl, { origin: this.origin });
    for (const [n, c] of this.cookies) j.cookies.set(n, { ...c });
    return j;
  }

  /** Parsed Set-Cookie headers of the last response whose name is `name`. */
  lastSetCookie(name) {
    return this.lastSetCookies.map(parseSetCookie).filter((c) => c.name === name);
  }

  /**
   * fetch() with this jar's cookies and Origin. Redirects are followed by hand
   * (so cookies set on intermediate 3xx responses are kept) unless
   * `init.redirect` is "manual" or "error".
   * @param {string|URL|Request} input
   * @param {RequestInit} [init]
   */
  async fetch(input, init = {}) {
    let url = input instanceof Request ? input.url : String(input);
    let method = (init.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    let body = init.body ?? (input instanceof Request ? input.body : undefined);
    const baseHeaders = new Headers(
      init.headers ?? (input instanceof Request ? input.headers : undefined)
    );
    const redirectMode = init.redirect ?? "follow";
    this.lastSetCookies = [];

    for (let hop = 0; hop <= 20; hop++) {
      const headers = new Headers(baseHeaders);
      const cookie = this.cookieHeader();
      if (cookie) headers.set("cookie", cookie);
      else headers.delete("cookie");
      if (this.origin !== null && !headers.has("origin")) headers.set("origin", this.origin);

      const res = await globalThis.fetch(url, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : body,
        redirect: "manual",
        signal: init.signal,
        ...(body && typeof body === "object" && "pipeTo" in body ? { duplex: "half" } : {}),
      });
      this.lastSetCookies.push(...this.store(res));
      this.lastResponse = res;

      const location = res.headers.get("location");
      if (redirectMode === "follow" && [301, 302, 303, 307, 308].includes(res.status) && location) {
        await res.body?.cancel();
        url = new URL(location, url).toString();
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          baseHeaders.delete("content-type");
          baseHeaders.delete("content-length");
        }
        continue;
      }
      if (redirectMode === "error" && res.status >= 300 && res.status < 400 && location) {
        throw new TypeError(`redirect to ${location} with redirect: "error"`);
      }
      return res;
    }
    throw new TypeError("too many redirects");
  }
}
