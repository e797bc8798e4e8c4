"use client";
import useSWR, { mutate } from "swr";
import type { SessionWithImpersonatedBy, UserWithRole } from "better-auth/client/plugins";
import type { components } from "@/lib/api/auth";
import { authClient } from "@/lib/auth-client";
import { unwrap, type ApiError } from "@/lib/errors";
import { keys } from "@/lib/session";

export const PAGE_SIZE = 20;

export interface UsersQuery {
  search: string;
  searchField: "email" | "name";
  sortBy: "createdAt" | "name" | "email";
  sortDirection: "asc" | "desc";
  page: number;
}

/** A listed user as the client types it, with the two-factor plugin's field the list carries. */
export type AdminUser = UserWithRole & { twoFactorEnabled?: boolean | null | undefined };
/** `list-users`' answer as documented, its users as the client types them. */
type Page = Omit<components["schemas"]["ListUsersResponse"], "users"> & { users: AdminUser[] };

/** One page of users from `list-users`; the previous page stays on screen while the next loads. */
export function useUsers(userId: string, q: UsersQuery) {
  const query = {
    limit: PAGE_SIZE,
    offset: q.page * PAGE_SIZE,
    sortBy: q.sortBy,
    sortDirection: q.sortDirection,
    ...(q.search.trim()
      ? { searchValue: q.search.trim(), searchField: q.searchField, searchOperator: "contains" as const }
      : {}),
  };
  return useSWR<Page | null, ApiError>(keys.adminUsers(userId, query), () =>
    unwrap<Page>(authClient.admin.listUsers({ query }) as Promise<{ data: Page | null; error: ApiError | null }>), {
    keepPreviousData: true,
  });
}

/** Revalidates every cached page of the users table after an admin action. */
export function refreshUsers() {
  return mutate((key) => Array.isArray(key) && key[0] === keys.adminUsers("", {})[0]);
}

/** A session row as `list-user-sessions` answers it (impersonation ones carry the admin's id). */
export type AdminSession = SessionWithImpersonatedBy;

/**
 * Every session of `targetId`, expired and impersonation ones too, as `userId` (the admin)
 * may see them: the ones still running first, newest first.
 */
export function useUserSessions(userId: string, targetId: string) {
  return useSWR<AdminSession[], ApiError>(keys.adminUserSessions(userId, targetId), async () => {
    const data = await unwrap(authClient.admin.listUserSessions({ userId: targetId }));
    const now = Date.now();
    const running = (s: AdminSession) => new Date(s.expiresAt).getTime() > now;
    return [...(data?.sessions ?? [])].sort(
      (a, b) => Number(running(b)) - Number(running(a)) || new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime(),
    );
  });
}

/** Reads `targetId`'s sessions again (after a ban, a revocation, a reset that signs them out). */
export function refreshUserSessions(targetId: string) {
  return mutate((key) => Array.isArray(key) && key[0] === keys.adminUserSessions("", "")[0] && key[2] === targetId);
}
