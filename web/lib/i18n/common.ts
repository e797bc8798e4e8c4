/** The words every page carries: the shell, the forms' checks, the server's error codes. */
import { namespace } from ".";
import english from "./compiled/en/common.json";

export type CommonMessages = typeof import("@/messages/en/common.json");
export const { t, useT } = namespace<CommonMessages>("common", english, (tag) => import(`./compiled/${tag}/common.json`));
