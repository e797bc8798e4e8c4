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
