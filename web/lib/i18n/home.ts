/** The home page (components/home). */
import { namespace } from ".";
import english from "./compiled/en/home.json";

export const { t, useT } = namespace<typeof import("@/messages/en/home.json")>("home", english, (tag) => import(`./compiled/${tag}/home.json`));
