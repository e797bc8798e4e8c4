/** The account page: profile, email, password, sessions, linked accounts, two-factor, billing, deletion (components/account). */
import { namespace } from ".";
import english from "./compiled/en/account.json";

export const { t, useT } = namespace<typeof import("@/messages/en/account.json")>("account", english, (tag) => import(`./compiled/${tag}/account.json`));
