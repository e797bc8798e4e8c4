"use client";
import useSWR, { mutate } from "swr";
import { authClient, type SessionData } from "@/lib/auth-client";
import { settle, unwrap, type ApiError } from "@/lib/errors";
import { keys } from "@/lib/session";

/** One of the user's sessions as `list-sessions` answers it. */
export type ListedSession = NonNullable<Awaited<ReturnType<typeof authClient.listSessions>>["data"]>[number];

/** The user's active sessions (listing them needs a recent sign-in: `SESSION_NOT_FRESH`). */
export function useSessions(userId: string) {
  return useSWR<ListedSession[] | null, ApiError>(keys.sessions(userId), () => unwrap(authClient.listSessions()));
}

/** One of the user's sign-in methods as `list-accounts` answers it. */
export type LinkedAccount = NonNullable<Awaited<ReturnType<typeof authClient.listAccounts>>["data"]>[number];

/** The user's sign-in methods: the password (`credential`) and linked providers. */
export function useLinkedAccounts(userId: string) {
  return useSWR<LinkedAccount[] | null, ApiError>(keys.accounts(userId), () => unwrap(authClient.listAccounts()));
}

/** What the profile form changes (a username only when it changes). */
export interface ProfileChanges {
  name: string;
  image: string | null;
  username?: string;
  displayUsername?: string;
}

/**
 * Saves the profile, shown at once in the cached session and rolled back if the server
 * refuses; the refusal, if any, is returned.
 */
export async function updateProfile(changes: ProfileChanges): Promise<ApiError | null> {
  let refused: ApiError | null = null;
  await mutate(
    keys.session,
    async () => {
      const { error } = await settle(authClient.updateUser(changes));
      if (error) {
        refused = error;
        throw error;
      }
      return undefined;
    },
    {
      optimisticData: (current?: SessionData | null) => (current ? { ...current, user: { ...current.user, ...changes } } : (current ?? null)),
      rollbackOnError: true,
      populateCache: false,
      revalidate: true,
    },
  ).catch(() => undefined);
  return refused;
}

/** After a password change: a new session token replaces the current one when the others are revoked. */
export async function refreshSessions(userId: string): Promise<void> {
  await Promise.all([mutate(keys.session), mutate(keys.sessions(userId))]);
}
