"use client";
import useSWR, { mutate } from "swr";
import { authClient, type SessionData } from "./auth-client";
import { unwrap, type ApiError } from "./errors";

/**
 * SWR keys: one per read, each but the session's own carrying the user it belongs to, so
 * another user's cached data can never show (a second tab, an impersonation).
 */
export const keys = {
  session: "auth/session",
  socialProviders: "auth/social-providers",
  captcha: "auth/captcha",
  sessions: (userId: string) => ["auth/sessions", userId] as const,
  accounts: (userId: string) => ["auth/accounts", userId] as const,
  // A user's own keys (`organizationId` empty) or an organization's.
  apiKeys: (userId: string, organizationId: string) => ["auth/api-keys", userId, organizationId] as const,
  canAdminister: (userId: string) => ["auth/can-list-users", userId] as const,
  adminUsers: (userId: string, query: object) => ["admin/users", userId, JSON.stringify(query)] as const,
  // Organizations: every key starts with "org/", so one call refreshes them all.
  organizations: (userId: string) => ["org/list", userId] as const,
  organization: (userId: string, organizationId: string) => ["org/full", userId, organizationId] as const,
  memberRole: (userId: string, organizationId: string) => ["org/role", userId, organizationId] as const,
  teamMembers: (userId: string, organizationId: string, teamId: string) => ["org/team-members", userId, organizationId, teamId] as const,
  invitation: (userId: string, invitationId: string) => ["org/invitation", userId, invitationId] as const,
  slug: (userId: string, slug: string) => ["org/check-slug", userId, slug] as const,
  customerBilling: (userId: string) => ["billing/customer", userId] as const,
  organizationBilling: (userId: string, organizationId: string) => ["billing/organization", userId, organizationId] as const,
  endpoints: (userId: string, organizationId: string) => ["billing/endpoints", userId, organizationId] as const,
  billingEvents: (userId: string, organizationId: string, filter: string) => ["billing/events", userId, organizationId, filter] as const,
  billingEvent: (userId: string, organizationId: string, eventId: string) => ["billing/event", userId, organizationId, eventId] as const,
  adminUserSessions: (userId: string, targetId: string) => ["admin/user-sessions", userId, targetId] as const,
  userInvitations: (userId: string) => ["org/user-invitations", userId] as const,
};

/** The signed-in user and session (`null` when signed out), revalidated on focus. */
export function useSession() {
  return useSWR<SessionData | null, ApiError>(keys.session, () => unwrap(authClient.getSession()), {
    revalidateOnFocus: true,
    shouldRetryOnError: false,
  });
}

/**
 * After sign-in, sign-out or impersonation: drop every cached read but the session and the
 * server's sign-in settings (the reads are keyed by user, so none could show for the wrong one anyway),
 * then read the session again.
 * The session is never emptied on the way, so no page flashes to sign-in, and reads keyed by
 * the new user start only after the drop.
 */
export async function resetCache(): Promise<void> {
  // The provider list and the captcha settings are the server's configuration, no one's data:
  // kept (dropped, they would stay empty on the sign-in page until the deduping interval passed).
  const kept = new Set<unknown>([keys.session, keys.socialProviders, keys.captcha]);
  await mutate((key) => !kept.has(key), undefined, { revalidate: false });
  await mutate(keys.session);
}

/** Reads the session again, and answers it (`undefined` when the read failed). */
export async function refreshSession(): Promise<SessionData | null | undefined> {
  return mutate<SessionData | null>(keys.session);
}

/**
 * Whether the signed-in user may list users, i.e. open the admin area. Asked of the server
 * (roles, custom roles and ADMIN_USER_IDS all count there); each action is checked again.
 * `allowed` is undefined while the answer is on its way.
 */
export function useCanAdminister(userId: string | undefined) {
  const { data, error, mutate: retry } = useSWR(userId ? keys.canAdminister(userId) : null, () =>
    unwrap(authClient.admin.hasPermission({ permissions: { user: ["list"] } })),
  );
  const allowed = error ? false : data === undefined ? undefined : data?.success === true;
  return { allowed, error: error as ApiError | undefined, retry };
}
