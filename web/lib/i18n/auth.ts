/** Signing in and up, passwords, email verification, two-step sign-in, social buttons and captcha (components/auth). */
import { namespace } from ".";
import english from "./compiled/en/auth.json";

export const { t, useT } = namespace<typeof import("@/messages/en/auth.json")>("auth", english, (tag) => import(`./compiled/${tag}/auth.json`));
