import type { components } from "@/lib/api/auth";
import type { authClient } from "@/lib/auth-client";

// The client's own inferred shapes (its methods' return types are generic over fetch options,
// so `ReturnType` of them is `any`), with what the gateway's document says where they differ:
// roles are any string on the wire (a deployment may add its own, and better-auth joins
// several with commas), and what `get-invitation` adds.
type Inferred = typeof authClient.$Infer;
type Documented = components["schemas"];

export type OrganizationSummary = Inferred["Organization"];
export type Member = Omit<Inferred["Member"], "role"> & Pick<Documented["Member"], "role">;
export type Invitation = Omit<Inferred["Invitation"], "role" | "teamId"> & Pick<Documented["Invitation"], "role" | "teamId">;
export type Team = Inferred["Team"];
export type FullOrganization = Omit<Inferred["ActiveOrganization"], "members" | "invitations" | "teams"> & {
  members: Member[];
  invitations: Invitation[];
  teams?: Team[] | undefined;
};
/** `get-invitation`: the invitation with what the invitee needs to decide (protocol §11.8). */
export type InvitationDetails = Invitation & Pick<Documented["InvitationDetails"], "organizationName" | "organizationSlug" | "inviterEmail">;
