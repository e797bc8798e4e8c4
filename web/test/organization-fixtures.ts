import type { SessionData } from "@/lib/auth-client";
import type { FullOrganization } from "@/components/organization/types";

const at = new Date("2030-01-01T00:00:00Z");
const user = (id: string, name: string, email: string) => ({ id, name, email });

/** Acme: Olga owns it, Ada is an admin, Max a member; one pending invitation, one team. */
export const acme = {
  id: "org-1",
  name: "Acme",
  slug: "acme",
  logo: null,
  createdAt: at,
  metadata: null,
  members: [
    { id: "m-olga", organizationId: "org-1", userId: "u-olga", role: "owner", createdAt: at, user: user("u-olga", "Olga Owner", "olga@example.com") },
    { id: "m-ada", organizationId: "org-1", userId: "u-ada", role: "admin", createdAt: at, user: user("u-ada", "Ada Admin", "ada@example.com") },
    { id: "m-max", organizationId: "org-1", userId: "u-max", role: "member", createdAt: at, user: user("u-max", "Max Member", "max@example.com") },
  ],
  invitations: [
    {
      id: "inv-1",
      organizationId: "org-1",
      email: "new@example.com",
      role: "member",
      status: "pending",
      inviterId: "u-olga",
      expiresAt: new Date(Date.now() + 86_400_000),
      createdAt: at,
      teamId: null,
    },
  ],
  teams: [{ id: "team-1", name: "Core", organizationId: "org-1", createdAt: at, updatedAt: at }],
} as unknown as FullOrganization;

/** A signed-in session of one of Acme's members, with Acme active. */
export function sessionOf(userId: string): SessionData {
  const member = acme.members.find((m) => m.userId === userId);
  if (!member) throw new Error(`no member ${userId}`);
  return {
    user: { ...member.user, emailVerified: true, createdAt: at, updatedAt: at, image: null },
    session: {
      id: `s-${userId}`,
      token: `t-${userId}`,
      userId,
      expiresAt: at,
      createdAt: at,
      updatedAt: at,
      activeOrganizationId: "org-1",
      activeTeamId: null,
    },
  } as unknown as SessionData;
}
