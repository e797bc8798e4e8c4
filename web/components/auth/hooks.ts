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
