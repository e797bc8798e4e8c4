"use client";
import useSWR from "swr";
import { authClient } from "@/lib/auth-client";
import { unwrap, type ApiError } from "@/lib/errors";
import { t } from "@/lib/i18n/apiKey";
import { keys } from "@/lib/session";

/** One key as `api-key/list` answers it (never the key itself). */
export type ListedApiKey = NonNullable<Awaited<ReturnType<typeof authClient.apiKey.list>>["data"]>["apiKeys"][number];

/** Whose keys a screen shows: the user's own, or an organization's. */
export interface KeyOwner {
  userId: string;
  organizationId?: string | undefined;
}

/** The owner's keys, newest first. */
export function useApiKeys({ userId, organizationId }: KeyOwner) {
  return useSWR<ListedApiKey[], ApiError>(keys.apiKeys(userId, organizationId ?? ""), async () => {
    const query = { sortBy: "createdAt", sortDirection: "desc" as const, ...(organizationId ? { organizationId } : {}) };
    const page = await unwrap(authClient.apiKey.list({ query }));
    return page?.apiKeys ?? [];
  });
}

/** How long a new key works, as offered: better-auth's bounds are 1 to 365 days. Labels are worded when shown. */
export const EXPIRIES = [
  { value: "", label: () => t("expiry.never") },
  { value: "30", label: () => t("expiry.30days") },
  { value: "90", label: () => t("expiry.90days") },
  { value: "365", label: () => t("expiry.1year") },
] as const;
