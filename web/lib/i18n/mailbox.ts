/** The development mailbox (components/mailbox). */
import { namespace } from ".";
import english from "./compiled/en/mailbox.json";

export const { t, useT } = namespace<typeof import("@/messages/en/mailbox.json")>("mailbox", english, (tag) => import(`./compiled/${tag}/mailbox.json`));
