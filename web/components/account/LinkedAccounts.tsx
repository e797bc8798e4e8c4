"use client";
import { useEffect, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/account";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { useSocialProviders } from "../auth/hooks";
import { useLinkedAccounts } from "./hooks";

// Back to this section of the account page (a fragment would not survive the provider's trip).
const PAGE = "/account/?section=security";

/**
 * How the user signs in: the password and each linked provider, with unlink (never for the
 * last way in) and a link button for each configured provider not linked yet. A refused link
 * comes back here with `?error=` and a sentence, shown at the top.
 */
export function LinkedAccounts({ userId, readOnly }: { userId: string; readOnly: boolean }) {
  const t = useT();
  const { data: accounts, error, isLoading, mutate } = useLinkedAccounts(userId);
  const { data: providers } = useSocialProviders();
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string>();

  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const problem = query.get("error");
    if (problem) setMessage(query.get("error_description") || t("linked.linkFailed", { problem }));
  }, []);

  // By the account's own id (better-auth 1.7's form).
  async function unlink(id: string) {
    setBusy(id);
    setMessage(undefined);
    const { error: refused } = await settle(authClient.unlinkAccount({ accountId: id }));
    if (refused) setMessage(describe(refused));
    await mutate();
    setBusy(null);
  }

  async function link(provider: string) {
    setBusy(provider);
    setMessage(undefined);
    const { error: refused } = await settle(authClient.linkSocial({ provider, callbackURL: PAGE, errorCallbackURL: PAGE }));
    // On success the client has already sent the browser to the provider.
    if (refused) {
      setMessage(describe(refused));
      setBusy(null);
    }
  }

  const list = accounts ?? [];
  const linked = new Set(list.map((a) => a.providerId));
  const linkable = (providers ?? []).filter((p) => !linked.has(p.id));
  const name = (providerId: string) =>
    providerId === "credential" ? t("linked.password") : (providers?.find((p) => p.id === providerId)?.name ?? providerId);

  return (
    <section className="card" aria-labelledby="accounts-title" aria-busy={isLoading || undefined}>
      <h2 id="accounts-title">{t("linked.title")}</h2>
      <FormAlert message={message} />
      {error ? (
        <LoadError message={t("linked.loadFailed")} error={error} retry={mutate} />
      ) : (
        <ul className="list">
          {list.map((account) => (
            <li key={account.id} className="list-row" data-testid="account-row">
              <strong>{name(account.providerId)}</strong>
              {/* The last way in is never offered for removal. */}
              {readOnly || list.length < 2 || account.providerId === "credential" ? null : (
                <Button
                  tone="secondary"
                  busy={busy === account.id}
                  busyLabel={t("linked.unlinking")}
                  onClick={() => void unlink(account.id)}
                  aria-label={t("linked.unlinkProvider", { provider: name(account.providerId) })}
                >
                  {t("linked.unlink")}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {readOnly
        ? null
        : linkable.map((provider) => (
            <Button
              key={provider.id}
              tone="secondary"
              busy={busy === provider.id}
              busyLabel={t("linked.goingTo", { provider: provider.name })}
              disabled={busy !== null}
              onClick={() => void link(provider.id)}
            >
              {t("linked.link", { provider: provider.name })}
            </Button>
          ))}
    </section>
  );
}
