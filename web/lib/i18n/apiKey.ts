/** API keys, the user's own and an organization's (components/api-key). */
import { namespace } from ".";
import english from "./compiled/en/apiKey.json";

export const { t, useT } = namespace<typeof import("@/messages/en/apiKey.json")>("apiKey", english, (tag) => import(`./compiled/${tag}/apiKey.json`));
