"use client";
import { useEffect, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/auth";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { useSocialProviders } from "./hooks";

/**
 * A button per configured provider. The browser leaves for the provider and comes back to
 * `callback`; a refusal comes back to this page with `?error=` and a sentence, shown here.
 */
export function SocialButtons({ callback, page }: { callback: string; page: string }) {
  const t = useT();
  const { data: providers } = useSocialProviders();
  const [pending, setPending] = useState<string | null>(null);
  // A sentence to show as it is, or the code of a refusal that came with none (worded at render).
  const [problem, setProblem] = useState<{ text: string } | { code: string } | undefined>();

  // A refused sign-in lands here: say why (the provider's or our words).
  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const error = query.get("error");
    if (error) {
      const description = query.get("error_description");
      setProblem(description ? { text: description } : { code: error });
    }
  }, []);

  if (!providers?.length) return null;
  const start = async (provider: string) => {
    setPending(provider);
    setProblem(undefined);
    const { error } = await settle(authClient.signIn.social({ provider, callbackURL: callback, errorCallbackURL: page }));
    // On success the client has already sent the browser to the provider.
    if (error) {
      setProblem({ text: describe(error) });
      setPending(null);
    }
  };
  return (
    <section className="card form social" aria-labelledby="social-title">
      <h2 id="social-title">{t("social.title")}</h2>
      <FormAlert message={problem && ("text" in problem ? problem.text : t("social.notCompleted", { error: problem.code }))} />
      {providers.map((provider) => (
        <Button
          key={provider.id}
          tone="secondary"
          busy={pending === provider.id}
          busyLabel={t("social.going", { provider: provider.name })}
          disabled={pending !== null}
          onClick={() => void start(provider.id)}
        >
          {t("social.continue", { provider: provider.name })}
        </Button>
      ))}
    </section>
  );
}
