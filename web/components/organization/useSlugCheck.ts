"use client";
import { useEffect, useState } from "react";
import "@/lib/organization-errors";
import useSWR from "swr";
import { authClient } from "@/lib/auth-client";
import { settle, type ApiError } from "@/lib/errors";
import * as rules from "@/lib/rules";
import { keys } from "@/lib/session";

/** How long typing must pause before a slug is checked. */
export const SLUG_CHECK_DELAY_MS = 350;

export type SlugStatus =
  /** Nothing to check: empty, not a valid slug, or the organization's own. */
  | "idle"
  | "checking"
  | "available"
  | "taken"
  /** The check failed (network, rate limit): the server judges on save. */
  | "unknown";

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/**
 * Whether `slug` is free, asked of the server (`check-slug`) once typing pauses. Answers are
 * cached per slug, so typing back to an earlier one answers at once.
 */
export function useSlugCheck(userId: string, slug: string, { skip = false }: { skip?: boolean } = {}): SlugStatus {
  const wanted = slug.trim();
  const checkable = !skip && wanted !== "" && rules.slug(wanted) === undefined;
  const settled = useDebounced(checkable ? wanted : "", SLUG_CHECK_DELAY_MS);
  const { data, error } = useSWR<"available" | "taken", ApiError>(
    settled ? keys.slug(userId, settled) : null,
    async () => {
      const { data, error } = await settle(authClient.organization.checkSlug({ slug: settled }));
      if (error?.code === "ORGANIZATION_SLUG_ALREADY_TAKEN") return "taken";
      if (error) throw error;
      return data?.status ? "available" : "taken";
    },
    { revalidateOnFocus: false, revalidateOnReconnect: false, shouldRetryOnError: false, dedupingInterval: 10_000 },
  );
  if (!checkable) return "idle";
  if (settled !== wanted) return "checking";
  if (error) return "unknown";
  return data ?? "checking";
}

/** The slug field's words for a status: an error, or a hint. */
export function slugMessage(status: SlugStatus, slug: string): { error?: string; hint?: string } {
  switch (status) {
    case "taken":
      return { error: "This slug is taken. Try another." };
    case "available":
      return { hint: `${slug.trim()} is available.` };
    case "checking":
      return { hint: "Checking whether it is free…" };
    case "unknown":
      return { hint: "We could not check it now; it is checked again when you save." };
    default:
      return {};
  }
}
