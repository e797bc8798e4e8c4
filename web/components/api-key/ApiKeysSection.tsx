"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/apiKey";
import { rich } from "@/lib/i18n/rich";
import { Button } from "../Button";
import { ConfirmDialog } from "../ConfirmDialog";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { CreateApiKeyForm } from "./CreateApiKeyForm";
import { RenameApiKey } from "./RenameApiKey";
import { useApiKeys, type KeyOwner, type ListedApiKey } from "./hooks";

/**
 * API keys for scripts and other services (`x-api-key`): the user's own, or an organization's
 * for members allowed to manage them. Each row says how to recognise the key and when it was
 * last used; keys can be renamed, turned off and on, and deleted.
 */
export function ApiKeysSection({ owner, title }: { owner: KeyOwner; title?: string }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useApiKeys(owner);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string>();
  const [deleting, setDeleting] = useState<ListedApiKey | null>(null);
  const titleId = owner.organizationId ? "org-api-keys-title" : "api-keys-title";

  async function toggle(key: ListedApiKey) {
    setBusy(key.id);
    setMessage(undefined);
    const { error: refused } = await settle(authClient.apiKey.update({ keyId: key.id, enabled: !key.enabled }));
    if (refused) setMessage(describe(refused));
    await mutate();
    setBusy(null);
  }

  async function remove(key: ListedApiKey): Promise<ApiError | null> {
    const { error: refused } = await settle(authClient.apiKey.delete({ keyId: key.id }));
    if (!refused) {
      setDeleting(null);
      await mutate();
    }
    return refused;
  }

  // A member whose role may not manage the organization's keys sees why, not a broken list.
  const refusedRole = error?.status === 403;

  return (
    <section className="card" aria-labelledby={titleId} aria-busy={isLoading || undefined}>
      <h2 id={titleId}>{title ?? t("keys.title")}</h2>
      <p className="muted">
        {rich(owner.organizationId ? t("keys.introOrganization") : t("keys.introUser"), { code: (text) => <code>{text}</code> })}
      </p>
      <FormAlert message={message} />
      {refusedRole ? (
        <p className="alert alert-info" role="note">
          {describe(error)}
        </p>
      ) : error ? (
        <LoadError message={t("keys.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("keys.loading")}>
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length > 0 ? (
        <ul className="list">
          {data.map((key) => (
            <li key={key.id} className="list-row" data-testid="api-key-row">
              <div>
                <strong>{key.name || t("key.unnamed")}</strong> <code>{key.start}…</code>
                {key.enabled ? null : <span className="badge">{t("key.off")}</span>}
                <p className="muted">
                  {t("key.created", { date: formatDate(key.createdAt) })} ·{" "}
                  {key.lastRequest ? t("key.lastUsed", { date: formatDate(key.lastRequest) }) : t("key.neverUsed")} ·{" "}
                  {key.expiresAt ? t("key.expires", { date: formatDate(key.expiresAt) }) : t("key.neverExpires")}
                  {key.remaining === null || key.remaining === undefined ? null : ` · ${t("key.usesLeft", { count: key.remaining })}`}
                </p>
              </div>
              <div className="actions">
                <RenameApiKey apiKey={key} onRenamed={mutate} />
                <Button
                  tone="secondary"
                  busy={busy === key.id}
                  busyLabel={key.enabled ? t("key.turningOff") : t("key.turningOn")}
                  onClick={() => void toggle(key)}
                  aria-label={
                    key.enabled
                      ? t("key.turnOffLabel", { name: key.name || t("key.unnamedInSentence") })
                      : t("key.turnOnLabel", { name: key.name || t("key.unnamedInSentence") })
                  }
                >
                  {key.enabled ? t("key.turnOff") : t("key.turnOn")}
                </Button>
                <Button tone="danger" busy={false} onClick={() => setDeleting(key)} aria-label={t("key.deleteLabel", { name: key.name || t("key.unnamedInSentence") })}>
                  {t("key.delete")}
                </Button>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t("keys.empty")}</p>
      )}
      {refusedRole ? null : <CreateApiKeyForm owner={owner} onCreated={mutate} />}
      <ConfirmDialog
        open={deleting !== null}
        title={t("delete.title", { name: deleting?.name || t("key.unnamedInSentence") })}
        confirmLabel={t("delete.confirm")}
        busyLabel={t("delete.deleting")}
        onConfirm={() => (deleting ? remove(deleting) : Promise.resolve(null))}
        onClose={() => setDeleting(null)}
      >
        <p>{t("delete.body")}</p>
      </ConfirmDialog>
    </section>
  );
}
