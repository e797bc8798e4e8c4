import { createAuthClient } from "better-auth/react";
import {
  adminClient,
  inferAdditionalFields,
  organizationClient,
  twoFactorClient,
  usernameClient,
} from "better-auth/client/plugins";
import { apiKeyClient } from "@better-auth/api-key/client";
import { goToTwoFactor } from "./two-factor";

/**
 * The one better-auth client the app uses: the official React client with the plugins the
 * gateway serves. No baseURL: the app is served from the same origin as `/api/auth`.
 */
export const authClient = createAuthClient({
  plugins: [
    // The user's language (a platform code): the mails' and the app's; sign-up and update-user take it.
    inferAdditionalFields({ user: { language: { type: "number", required: false } } }),
    usernameClient(),
    adminClient(),
    organizationClient({ teams: { enabled: true } }),
    apiKeyClient(),
    // A password sign-in that needs a second factor goes on to the code page, same destination.
    twoFactorClient({ onTwoFactorRedirect: ({ twoFactorMethods }) => goToTwoFactor(twoFactorMethods) }),
  ],
});

export type AuthClient = typeof authClient;
export type SessionData = NonNullable<Awaited<ReturnType<AuthClient["getSession"]>>["data"]>;
export type SessionUser = SessionData["user"];
export type ClientSession = SessionData["session"];
