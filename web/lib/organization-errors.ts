import { addCodes } from "./errors";
import { t } from "./i18n/organization";

/**
 * The organization plugin's error codes (protocol §11.11) in the one table of `errors.ts`,
 * added when an organization screen loads (each imports this module). Refusals the screens
 * never offer still get words, for a role changed in another tab or a deployment with other
 * rules.
 */
addCodes({
  ORGANIZATION_SLUG_ALREADY_TAKEN: { message: () => t("error.ORGANIZATION_SLUG_ALREADY_TAKEN"), fields: ["slug"] },
  ORGANIZATION_ALREADY_EXISTS: { message: () => t("error.ORGANIZATION_ALREADY_EXISTS"), fields: ["slug"] },
  ORGANIZATION_NOT_FOUND: { message: () => t("error.ORGANIZATION_NOT_FOUND"), fields: [] },
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: { message: () => t("error.YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION"), fields: [] },
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS: { message: () => t("error.YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS"), fields: [] },
  ORGANIZATION_DELETION_DISABLED: { message: () => t("error.ORGANIZATION_DELETION_DISABLED"), fields: [] },
  NO_ACTIVE_ORGANIZATION: { message: () => t("error.NO_ACTIVE_ORGANIZATION"), fields: [] },
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: { message: () => t("error.USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"), fields: [] },
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: { message: () => t("error.YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION"), fields: [] },
  MEMBER_NOT_FOUND: { message: () => t("error.MEMBER_NOT_FOUND"), fields: [] },
  ROLE_NOT_FOUND: { message: () => t("error.ROLE_NOT_FOUND"), fields: ["role"] },
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: { message: () => t("error.USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION"), fields: ["email"] },
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: { message: () => t("error.USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION"), fields: ["email"] },
  INVITATION_LIMIT_REACHED: { message: () => t("error.INVITATION_LIMIT_REACHED"), fields: [] },
  TOO_MANY_INVITATIONS_TO_THIS_EMAIL: { message: () => t("error.TOO_MANY_INVITATIONS_TO_THIS_EMAIL"), fields: ["email"] },
  TOO_MANY_INVITATIONS_FROM_THIS_ORGANIZATION: { message: () => t("error.TOO_MANY_INVITATIONS_FROM_THIS_ORGANIZATION"), fields: [] },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: { message: () => t("error.YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE"), fields: ["role"] },
  INVITATION_NOT_FOUND: { message: () => t("error.INVITATION_NOT_FOUND"), fields: [] },
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: { message: () => t("error.YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"), fields: [] },
  EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION: { message: () => t("error.EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION"), fields: [] },
  EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION: { message: () => t("error.EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION"), fields: [] },
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: { message: () => t("error.INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION"), fields: [] },
  ORGANIZATION_MEMBERSHIP_LIMIT_REACHED: { message: () => t("error.ORGANIZATION_MEMBERSHIP_LIMIT_REACHED"), fields: [] },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: { message: () => t("error.YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"), fields: [] },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: { message: () => t("error.YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER"), fields: ["role"] },
  TEAM_NOT_FOUND: { message: () => t("error.TEAM_NOT_FOUND"), fields: ["team"] },
  TEAM_ALREADY_EXISTS: { message: () => t("error.TEAM_ALREADY_EXISTS"), fields: ["teamName"] },
  INVALID_TEAM_ID: { message: () => t("error.INVALID_TEAM_ID"), fields: ["team"] },
  TEAM_MEMBER_LIMIT_REACHED: { message: () => t("error.TEAM_MEMBER_LIMIT_REACHED"), fields: ["team"] },
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS: { message: () => t("error.YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS"), fields: [] },
  UNABLE_TO_REMOVE_LAST_TEAM: { message: () => t("error.UNABLE_TO_REMOVE_LAST_TEAM"), fields: [] },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: { message: () => t("error.YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM"), fields: [] },
  USER_IS_NOT_A_MEMBER_OF_THE_TEAM: { message: () => t("error.USER_IS_NOT_A_MEMBER_OF_THE_TEAM"), fields: [] },
  YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM: { message: () => t("error.YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM"), fields: [] },
});
