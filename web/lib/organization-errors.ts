import { addCodes } from "./errors";

/**
 * The organization plugin's error codes (protocol §11.11) in the one table of `errors.ts`,
 * added when an organization screen loads (each imports this module). Refusals the screens
 * never offer still get words, for a role changed in another tab or a deployment with other
 * rules.
 */
addCodes({
  ORGANIZATION_SLUG_ALREADY_TAKEN: { message: "This slug is taken. Try another.", fields: ["slug"] },
  ORGANIZATION_ALREADY_EXISTS: { message: "An organization with this slug already exists. Try another.", fields: ["slug"] },
  ORGANIZATION_NOT_FOUND: { message: "This organization no longer exists.", fields: [] },
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: { message: "Creating organizations is turned off for your account.", fields: [] },
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS: {
    message: "You belong to as many organizations as allowed. Leave one to create another.",
    fields: [],
  },
  ORGANIZATION_DELETION_DISABLED: { message: "Deleting organizations is turned off here.", fields: [] },
  NO_ACTIVE_ORGANIZATION: { message: "Choose an organization first.", fields: [] },
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: { message: "You are not a member of this organization any more.", fields: [] },
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: { message: "You are not a member of this organization any more.", fields: [] },
  MEMBER_NOT_FOUND: { message: "This member is no longer in the organization.", fields: [] },
  ROLE_NOT_FOUND: { message: "This role does not exist in this organization.", fields: ["role"] },
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: { message: "This person is already a member.", fields: ["email"] },
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: {
    message: "This address already has a pending invitation. Resend it from the list of invitations.",
    fields: ["email"],
  },
  INVITATION_LIMIT_REACHED: { message: "Too many invitations are pending. Cancel some first.", fields: [] },
  TOO_MANY_INVITATIONS_TO_THIS_EMAIL: {
    message: "This address has received too many invitations lately. Try again later.",
    fields: ["email"],
  },
  TOO_MANY_INVITATIONS_FROM_THIS_ORGANIZATION: {
    message: "This organization has sent too many invitations lately. Try again later.",
    fields: [],
  },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: { message: "Only an owner can invite an owner.", fields: ["role"] },
  INVITATION_NOT_FOUND: {
    message: "This invitation is no longer valid: it expired, was cancelled, or was already answered.",
    fields: [],
  },
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: {
    message: "This invitation was sent to another email address than the one you are signed in with.",
    fields: [],
  },
  EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION: {
    message:
      "Open this invitation from the link in its mail (it proves your address), or verify your email address from your account page first.",
    fields: [],
  },
  EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION: {
    message:
      "Open this invitation from the link in its mail (it proves your address), or verify your email address from your account page first.",
    fields: [],
  },
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: {
    message: "The person who invited you has left the organization, so this invitation no longer works.",
    fields: [],
  },
  ORGANIZATION_MEMBERSHIP_LIMIT_REACHED: { message: "This organization has as many members as allowed.", fields: [] },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: {
    message: "An organization needs an owner: make someone else an owner first.",
    fields: [],
  },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: {
    message: "An organization needs an owner: make someone else an owner first.",
    fields: ["role"],
  },
  TEAM_NOT_FOUND: { message: "This team no longer exists.", fields: ["team"] },
  TEAM_ALREADY_EXISTS: { message: "A team with this name already exists.", fields: ["teamName"] },
  INVALID_TEAM_ID: { message: "This team cannot be chosen.", fields: ["team"] },
  TEAM_MEMBER_LIMIT_REACHED: { message: "This team has as many members as allowed.", fields: ["team"] },
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS: { message: "This organization has as many teams as allowed.", fields: [] },
  UNABLE_TO_REMOVE_LAST_TEAM: {
    message: "An organization keeps at least one team: create another one before removing this one.",
    fields: [],
  },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: {
    message: "You cannot remove this team: it is your active team, or you are no longer in the organization.",
    fields: [],
  },
  USER_IS_NOT_A_MEMBER_OF_THE_TEAM: { message: "This person is not in the team.", fields: [] },
  YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM: { message: "Choose a team first.", fields: [] },
});
