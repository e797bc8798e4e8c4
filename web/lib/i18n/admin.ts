/** The admin area: users, roles, bans, sessions, impersonation (components/admin). */
import { namespace } from ".";
import english from "./compiled/en/admin.json";

export const { t, useT } = namespace<typeof import("@/messages/en/admin.json")>("admin", english, (tag) => import(`./compiled/${tag}/admin.json`));
