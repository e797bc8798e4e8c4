import { t } from "@/lib/i18n/organization";

/**
 * What the caller's role lets them do in an organization, so the screens offer only that
 * (protocol §11.4): an owner everything; an admin everything but deleting the organization,
 * and nothing that touches an owner; a member only looking and leaving. The server checks
 * every action again. A role the app does not know (a deployment's own) gets a member's
 * screens: its extra rights still work through the API.
 */
export type RoleName = "owner" | "admin" | "member";

/** A known role's name in the current language (looked up when shown). */
const LABELS: Record<string, () => string> = {
  owner: () => t("role.owner"),
  admin: () => t("role.admin"),
  member: () => t("role.member"),
};

/** The roles in a member's role string (better-auth joins several with commas). */
export function rolesOf(role: string | null | undefined): string[] {
  return (role ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
}

export function roleLabel(role: string | null | undefined): string {
  const roles = rolesOf(role);
  return roles.length === 0 ? "—" : roles.map((r) => LABELS[r]?.() ?? r).join(", ");
}

export function isOwnerRole(role: string | null | undefined): boolean {
  return rolesOf(role).includes("owner");
}

export interface Abilities {
  isOwner: boolean;
  /** Invite, cancel invitations, change and remove members, manage teams, edit settings. */
  manage: boolean;
  /** Delete the organization. */
  deleteOrganization: boolean;
  /** The roles the caller may give (only an owner makes owners). */
  assignable: RoleName[];
}

export function abilitiesOf(role: string | null | undefined): Abilities {
  const roles = rolesOf(role);
  const isOwner = roles.includes("owner");
  const manage = isOwner || roles.includes("admin");
  return {
    isOwner,
    manage,
    deleteOrganization: isOwner,
    assignable: isOwner ? ["member", "admin", "owner"] : manage ? ["member", "admin"] : [],
  };
}

/** Whether the caller may change or remove `member` (never themselves here: they leave instead). */
export function mayChange(abilities: Abilities, callerId: string, member: { userId: string; role: string }): boolean {
  if (!abilities.manage || member.userId === callerId) return false;
  return abilities.isOwner || !isOwnerRole(member.role);
}

/** The roles a select offers, in order (each shown with `roleLabel`, in the current language). */
export const ROLE_OPTIONS: { value: RoleName }[] = [{ value: "member" }, { value: "admin" }, { value: "owner" }];
