"use client";
import { useEffect, useState } from "react";
import "@/lib/organization-errors";
import useSWR, { mutate } from "swr";
import { authClient } from "@/lib/auth-client";
import { settle, unwrap, type ApiError } from "@/lib/errors";
import * as rules from "@/lib/rules";
import { keys } from "@/lib/session";
import { SLUG_CHECK_DELAY_MS, type SlugStatus } from "./slug";
import type { FullOrganization, InvitationDetails, Member, OrganizationSummary } from "./types";

/** The organizations the user is a member of. */
export function useOrganizations(userId: string | undefined) {
  return useSWR<OrganizationSummary[] | null, ApiError>(userId ? keys.organizations(userId) : null, () =>
    unwrap(authClient.organization.list()) as Promise<OrganizationSummary[] | null>,
  );
}

/** One organization with its members, invitations and teams. */
export function useFullOrganization(userId: string, organizationId: string) {
  return useSWR<FullOrganization | null, ApiError>(keys.organization(userId, organizationId), () =>
    unwrap(authClient.organization.getFullOrganization({ query: { organizationId } })) as Promise<FullOrganization | null>,
  );
}

/** The caller's role in the organization, as the server states it (`get-active-member-role`). */
export function useMemberRole(userId: string, organizationId: string) {
  return useSWR<string | null, ApiError>(keys.memberRole(userId, organizationId), async () => {
    const data = await unwrap(authClient.organization.getActiveMemberRole({ query: { organizationId } }));
    return data?.role ?? null;
  });
}

/**
 * Who is in a team, as user ids. The server lists a team's members only to its own members;
 * someone who manages the organization without being in the team gets the same answer from
 * each member's teams instead (`list-user-teams`, which needs `member:update`).
 */
export function useTeamMembers(userId: string, organizationId: string, teamId: string, members: Member[], canManage: boolean) {
  return useSWR<string[], ApiError>(keys.teamMembers(userId, organizationId, teamId), async () => {
    const direct = await settle(authClient.organization.listTeamMembers({ query: { teamId } }));
    if (!direct.error) return (direct.data ?? []).map((m) => m.userId);
    if (!canManage || direct.error.code !== "USER_IS_NOT_A_MEMBER_OF_THE_TEAM") throw direct.error;
    const inTeam: string[] = [];
    // A few at a time: an organization may have a hundred members.
    for (let i = 0; i < members.length; i += 8) {
      const batch = members.slice(i, i + 8);
      const answers = await Promise.all(
        batch.map((m) => unwrap(authClient.organization.listUserTeams({ query: { userId: m.userId, organizationId } }))),
      );
      answers.forEach((teams, j) => {
        const member = batch[j];
        if (member && (teams ?? []).some((t) => t.id === teamId)) inTeam.push(member.userId);
      });
    }
    return inTeam;
  });
}

/**
 * An invitation as its invitee sees it. The token (from the mailed link) rides along as an
 * extra field, which the official client passes through. Read once: a refusal is an answer.
 */
export function useInvitation(userId: string, invitationId: string, token: string | null) {
  const query = token ? { id: invitationId, token } : { id: invitationId };
  return useSWR<InvitationDetails | null, ApiError>(
    keys.invitation(userId, invitationId),
    () => unwrap(authClient.organization.getInvitation({ query })) as Promise<InvitationDetails | null>,
    { shouldRetryOnError: false, revalidateOnFocus: false },
  );
}

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

/**
 * Changes a member's role, shown at once in the cached organization and undone if the server
 * refuses; the refusal, if any, is returned.
 */
export async function changeMemberRole(userId: string, organizationId: string, memberId: string, role: string): Promise<ApiError | undefined> {
  let refused: ApiError | undefined;
  await mutate(
    keys.organization(userId, organizationId),
    async (current?: FullOrganization | null) => {
      const { error } = await settle(authClient.organization.updateMemberRole({ memberId, role: role as "member", organizationId }));
      if (error) {
        refused = error;
        throw error;
      }
      return current;
    },
    {
      optimisticData: (current?: FullOrganization | null) =>
        current ? { ...current, members: current.members.map((m) => (m.id === memberId ? { ...m, role } : m)) } : (current ?? null),
      rollbackOnError: true,
      populateCache: false,
      revalidate: true,
    },
  ).catch(() => undefined);
  return refused;
}

/** Reads every organization read again (all their keys start with "org/"), but slug checks. */
export function refreshOrganizations() {
  return mutate((key) => Array.isArray(key) && typeof key[0] === "string" && key[0].startsWith("org/") && key[0] !== "org/check-slug");
}

/** After the session's active organization (or team) may have changed. */
export async function refreshSessionAndOrganizations() {
  // The session first: a page showing an organization the user just left moves on before its
  // reads are asked again (and refused).
  await mutate(keys.session);
  await refreshOrganizations();
}
