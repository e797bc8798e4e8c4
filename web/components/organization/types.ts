import type { authClient } from "@/lib/auth-client";

// The client's own inferred shapes (its methods' return types are generic over fetch options,
// so `ReturnType` of them is `any`). Roles are any string on the wire: a deployment may add its
// own, and better-auth joins several with commas.
type Inferred = typeof authClient.$Infer;

export type OrganizationSummary = Inferred["Organization"];
export type Member = Omit<Inferred["Member"], "role"> & { role: string };
export type Invitation = Omit<Inferred["Invitation"], "role" | "teamId"> & { role: string; teamId?: string | null | undefined };
export type Team = Inferred["Team"];
export type FullOrganization = Omit<Inferred["ActiveOrganization"], "members" | "invitations" | "teams"> & {
  members: Member[];
  invitations: Invitation[];
  teams?: Team[] | undefined;
};
/** `get-invitation`: the invitation with what the invitee needs to decide (protocol §11.8). */
export type InvitationDetails = Invitation & { organizationName: string; organizationSlug: string; inviterEmail: string };
