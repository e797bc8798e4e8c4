"use client";
import useSWR from "swr";
import type { components } from "@/lib/api/auth";
import { authClient } from "@/lib/auth-client";
import { unwrap, type ApiError } from "@/lib/errors";
import { keys } from "@/lib/session";

/** A configured social sign-in provider, as the gateway lists it. */
export type SocialProvider = components["schemas"]["SocialProvider"];

/** The providers configured on the server (`SOCIAL_PROVIDERS`): nothing is baked into the build. */
export function useSocialProviders() {
  return useSWR<SocialProvider[], ApiError>(keys.socialProviders, async () => {
    const listed = await unwrap(
      authClient.$fetch<components["schemas"]["SocialProviders"]>("/social-providers", { method: "GET" }),
    );
    return listed?.providers ?? [];
  });
}

/**
 * The server's captcha settings (`GET /api/auth/captcha`): the provider, its public site key,
 * and the endpoints (paths below /api/auth) that want a token. `provider: null`: captcha is off.
 */
export type CaptchaConfig = components["schemas"]["CaptchaConfig"];

const CAPTCHA_OFF: CaptchaConfig = { provider: null, siteKey: null, endpoints: [] };

/** The captcha settings, read at run time: nothing is baked into the build. */
export function useCaptchaConfig() {
  return useSWR<CaptchaConfig, ApiError>(
    keys.captcha,
    async () => (await unwrap(authClient.$fetch<CaptchaConfig>("/captcha", { method: "GET" }))) ?? CAPTCHA_OFF,
    // Configuration: read once per page, not on every focus.
    { revalidateOnFocus: false },
  );
}
