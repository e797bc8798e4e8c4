"use client";
import "@/lib/organization-errors";
import useSWR from "swr";
import { authClient } from "@/lib/auth-client";
import { settle, type ApiError } from "@/lib/errors";
import { keys } from "@/lib/session";
import type { Invitation } from "../organization/types";

/**
 * One of the user's pending invitations (`list-user-invitations`): the invitation and its
 * organization's name. Who sent it is not in that answer; `inviterEmail` is filled in from
 * `get-invitation` when that answers.
 */
export type UserInvitation = Invitation & { organizationName: string; inviterEmail?: string | undefined };

/** Who sent each invitation, asked of `get-invitation` (a refusal just leaves it unknown). */
async function withInviters(invitations: UserInvitation[]): Promise<UserInvitation[]> {
  return Promise.all(
    invitations.map(async (invitation) => {
      if (invitation.inviterEmail) return invitation;
      const { data } = await settle(authClient.organization.getInvitation({ query: { id: invitation.id } }));
      const inviterEmail = data?.inviterEmail;
      return inviterEmail ? { ...invitation, inviterEmail } : invitation;
    }),
  );
}

/**
 * The signed-in user's pending invitations, unexpired, soonest to expire first. An unverified
 * address may not list them (`EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION`): that reads as
 * none, since such a user answers from the mailed link, whose token proves the address.
 */
export function useUserInvitations(userId: string) {
  return useSWR<UserInvitation[], ApiError>(keys.userInvitations(userId), async () => {
    const { data, error } = await settle(authClient.organization.listUserInvitations());
    if (error?.code === "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION") return [];
    if (error) throw error;
    const now = Date.now();
    const pending = ((data ?? []) as UserInvitation[])
      .filter((i) => i.status === "pending" && new Date(i.expiresAt).getTime() > now)
      .sort((a, b) => new Date(a.expiresAt).getTime() - new Date(b.expiresAt).getTime());
    return withInviters(pending);
  });
}
