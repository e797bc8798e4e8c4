/** Organizations: creation, members, invitations, teams, roles, settings (components/organization, lib/organization-errors.ts). */
import { namespace } from ".";
import english from "./compiled/en/organization.json";

export const { t, useT } = namespace<typeof import("@/messages/en/organization.json")>("organization", english, (tag) => import(`./compiled/${tag}/organization.json`));
