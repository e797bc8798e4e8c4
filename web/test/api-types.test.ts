/**
 * The app calls /api/auth through better-auth's client, typed by better-auth; the gateway's
 * document (lib/api/auth.ts, generated from what it serves) must not require a field those
 * types lack. Checked by `npm run typecheck`; the test only makes Vitest list it.
 */
import type { components } from "@/lib/api/auth";
import type { authClient } from "@/lib/auth-client";

type Documented = components["schemas"];
type Inferred = typeof authClient.$Infer;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** Named keys only: some of the client's types also take any string, which would hide every gap. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
/** The fields the document always sends that the client's type does not know. */
type Unknown<Doc, Client> = Exclude<RequiredKeys<Doc>, KnownKeys<Client>>;

describe("the /api/auth document and the client's types", () => {
  it("agree on the fields the document always sends", () => {
    // `language` is Gatehouse's own (the language of the app and the user's mails): the client
    // is told of it with `inferAdditionalFields`.
    expectTypeOf<Unknown<Documented["User"], Inferred["Session"]["user"]>>().toEqualTypeOf<never>();
    expectTypeOf<Unknown<Documented["Session"], Inferred["Session"]["session"]>>().toEqualTypeOf<never>();
    expectTypeOf<Unknown<Documented["Organization"], Inferred["Organization"]>>().toEqualTypeOf<never>();
    expectTypeOf<Unknown<Documented["Member"], Inferred["Member"]>>().toEqualTypeOf<never>();
    expectTypeOf<Unknown<Documented["Invitation"], Inferred["Invitation"]>>().toEqualTypeOf<never>();
    expectTypeOf<Unknown<Documented["Team"], Inferred["Team"]>>().toEqualTypeOf<never>();
  });
});
