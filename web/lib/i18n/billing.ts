/** An organization's billing webhooks: endpoints, the event log, purchases (components/billing). */
import { namespace } from ".";
import english from "./compiled/en/billing.json";

export const { t, useT } = namespace<typeof import("@/messages/en/billing.json")>("billing", english, (tag) => import(`./compiled/${tag}/billing.json`));
