import { currentCallback } from "./callback";

/** The second factors a pending sign-in offers, as the sign-in answer lists them. */
export type TwoFactorMethod = "totp" | "otp";

export const TWO_FACTOR_PAGE = "/sign-in/two-factor/";

/** The two-factor page's address, carrying the methods and where the sign-in was going. */
export function twoFactorPath(methods: readonly string[], callback: string): string {
  const known = methods.filter((m): m is TwoFactorMethod => m === "totp" || m === "otp");
  const query = [
    ...(known.length > 0 ? [`methods=${known.join(",")}`] : []),
    ...(callback !== "/" ? [`callbackURL=${encodeURIComponent(callback)}`] : []),
  ];
  return query.length > 0 ? `${TWO_FACTOR_PAGE}?${query.join("&")}` : TWO_FACTOR_PAGE;
}

/**
 * The page's `methods` parameter. `null` when absent or unknown (the mailed code's link has
 * none): then the page cannot tell which methods the user has.
 */
export function parseMethods(raw: string | null): TwoFactorMethod[] | null {
  const known = (raw ?? "").split(",").filter((m): m is TwoFactorMethod => m === "totp" || m === "otp");
  return known.length > 0 ? known : null;
}

/**
 * Where the client plugin sends a sign-in that needs a second factor. A full page load: the
 * plugin runs outside React, with no router at hand. An object, so tests can replace `go`.
 */
export const navigation = {
  go(path: string): void {
    window.location.assign(path);
  },
};

export function goToTwoFactor(methods: readonly string[] | undefined): void {
  navigation.go(twoFactorPath(methods ?? [], currentCallback()));
}
