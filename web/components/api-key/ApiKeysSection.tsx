"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
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
export function ApiKeysSection({ owner, title = "API keys" }: { owner: KeyOwner; title?: string }) {
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
      <h2 id={titleId}>{title}</h2>
      <p className="muted">
        A key signs a script or service in as {owner.organizationId ? "this organization" : "you"}: send it in the{" "}
        <code>x-api-key</code> header.
      </p>
      <FormAlert message={message} />
      {refusedRole ? (
        <p className="alert alert-info" role="note">
          {describe(error)}
        </p>
      ) : error ? (
        <LoadError what="the API keys" error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label="Loading API keys">
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length > 0 ? (
        <ul className="list">
          {data.map((key) => (
            <li key={key.id} className="list-row" data-testid="api-key-row">
              <div>
                <strong>{key.name || "Unnamed key"}</strong> <code>{key.start}…</code>
                {key.enabled ? null : <span className="badge">Off</span>}
                <p className="muted">
                  Created {formatDate(key.createdAt)} · last used {key.lastRequest ? formatDate(key.lastRequest) : "never"} ·{" "}
                  {key.expiresAt ? `expires ${formatDate(key.expiresAt)}` : "never expires"}
                  {key.remaining === null || key.remaining === undefined ? null : ` · ${key.remaining} uses left`}
                </p>
              </div>
              <div className="actions">
                <RenameApiKey apiKey={key} onRenamed={mutate} />
                <Button
                  tone="secondary"
                  busy={busy === key.id}
                  busyLabel={key.enabled ? "Turning off…" : "Turning on…"}
                  onClick={() => void toggle(key)}
                  aria-label={`${key.enabled ? "Turn off" : "Turn on"} ${key.name || "unnamed key"}`}
                >
                  {key.enabled ? "Turn off" : "Turn on"}
                </Button>
                <Button tone="danger" busy={false} onClick={() => setDeleting(key)} aria-label={`Delete ${key.name || "unnamed key"}`}>
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No API keys yet.</p>
      )}
      {refusedRole ? null : <CreateApiKeyForm owner={owner} onCreated={mutate} />}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete “${deleting?.name || "unnamed key"}”?`}
        confirmLabel="Delete key"
        busyLabel="Deleting…"
        onConfirm={() => (deleting ? remove(deleting) : Promise.resolve(null))}
        onClose={() => setDeleting(null)}
      >
        <p>Whatever uses this key stops working at once. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
