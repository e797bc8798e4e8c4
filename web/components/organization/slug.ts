import { t } from "@/lib/i18n/organization";

/** How long typing must pause before a slug is checked. */
export const SLUG_CHECK_DELAY_MS = 350;

/** What `useSlugCheck` (in `hooks.ts`) knows of a slug. */
export type SlugStatus =
  /** Nothing to check: empty, not a valid slug, or the organization's own. */
  | "idle"
  | "checking"
  | "available"
  | "taken"
  /** The check failed (network, rate limit): the server judges on save. */
  | "unknown";

/** The slug field's words for a status: an error, or a hint. */
export function slugMessage(status: SlugStatus, slug: string): { error?: string; hint?: string } {
  switch (status) {
    case "taken":
      return { error: t("slug.taken") };
    case "available":
      return { hint: t("slug.available", { slug: slug.trim() }) };
    case "checking":
      return { hint: t("slug.checking") };
    case "unknown":
      return { hint: t("slug.unknown") };
    default:
      return {};
  }
}
