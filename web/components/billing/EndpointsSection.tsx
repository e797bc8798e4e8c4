"use client";
import { useState } from "react";
import { billing, type Endpoint, type EndpointSecret } from "@/lib/billing";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { Button } from "../Button";
import { ConfirmDialog } from "../ConfirmDialog";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { refreshBilling, useEndpoints } from "./hooks";

/** The organization's endpoints, each with what its managers can do to it. */
export function EndpointsSection({ userId, organizationId }: { userId: string; organizationId: string }) {
  const { data, error, isLoading, mutate } = useEndpoints(userId, organizationId);
  return (
    <section className="card" aria-labelledby="endpoints-title" aria-busy={isLoading || undefined}>
      <h2 id="endpoints-title">Endpoints</h2>
      {error ? (
        <LoadError what="the endpoints" error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label="Loading endpoints">
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length > 0 ? (
        <ul className="list">
          {data.map((endpoint) => (
            <EndpointRow key={endpoint.id} endpoint={endpoint} organizationId={organizationId} />
          ))}
        </ul>
      ) : (
        <p className="empty">No endpoints yet. Add one below to receive your customers&apos; billing events.</p>
      )}
    </section>
  );
}

function EndpointRow({ endpoint, organizationId }: { endpoint: Endpoint; organizationId: string }) {
  const [busy, setBusy] = useState<string>();
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string }>();
  const [secret, setSecret] = useState<EndpointSecret>();
  const [removing, setRemoving] = useState(false);

  /** Runs one action of the row, its outcome said in the row. */
  async function act<T>(name: string, call: () => Promise<{ data: T | null; error: ApiError | null }>, success: (data: T | null) => string | undefined) {
    setBusy(name);
    setMessage(undefined);
    const { data, error } = await settle(call());
    setBusy(undefined);
    if (error) {
      setMessage({ tone: "error", text: describe(error) });
      return;
    }
    const text = success(data);
    if (text) setMessage({ tone: "success", text });
    await refreshBilling();
  }

  const types = endpoint.eventTypes.length > 0 ? endpoint.eventTypes.join(", ") : "every event type";
  return (
    <li className="list-row endpoint-row" data-testid="endpoint-row">
      <div>
        <strong className="wrap-anywhere">{endpoint.url}</strong>
        <p className="muted">
          {endpoint.description ? `${endpoint.description} · ` : ""}
          {types} · {endpoint.polarSigning ? "signed as the payments platform signs" : "Standard Webhooks"} ·{" "}
          <span data-testid="endpoint-state">{endpoint.enabled ? "enabled" : "disabled"}</span>
        </p>
        {endpoint.disabledReason ? <p className="alert alert-error">{endpoint.disabledReason}</p> : null}
        {endpoint.failingSince && endpoint.enabled ? (
          <p className="muted">Failing since {formatDate(endpoint.failingSince)}.</p>
        ) : null}
        {secret ? (
          <div className="secret" data-testid="endpoint-secret">
            <p>
              Signing secret: <code>{secret.secret}</code>
            </p>
            {secret.previousSecret ? (
              <p className="muted">
                The previous one, <code>{secret.previousSecret}</code>, also signs until {formatDate(secret.previousSecretExpiresAt)}.
              </p>
            ) : null}
          </div>
        ) : null}
        <FormAlert message={message?.text} tone={message?.tone} />
      </div>
      <div className="actions">
        <Button
          tone="secondary"
          busy={busy === "secret"}
          busyLabel="Revealing…"
          onClick={() =>
            secret
              ? setSecret(undefined)
              : void act("secret", () => billing.secret(organizationId, endpoint.id), (data) => {
                  if (data) setSecret(data);
                  return undefined;
                })
          }
        >
          {secret ? "Hide secret" : "Reveal secret"}
        </Button>
        <Button
          tone="secondary"
          busy={busy === "rotate"}
          busyLabel="Rotating…"
          onClick={() =>
            void act("rotate", () => billing.rotateSecret(organizationId, endpoint.id), () => {
              setSecret(undefined);
              return "A new secret signs from now on; the old one too, for a day. Reveal it to update your receiver.";
            })
          }
        >
          Rotate secret
        </Button>
        <Button
          tone="secondary"
          busy={busy === "test"}
          busyLabel="Sending…"
          disabled={!endpoint.enabled}
          onClick={() =>
            void act("test", () => billing.sendTest(organizationId, endpoint.id), () => "Test event sent. Its delivery shows in the event log.")
          }
        >
          Send test event
        </Button>
        <Button
          tone="secondary"
          busy={busy === "toggle"}
          busyLabel={endpoint.enabled ? "Disabling…" : "Enabling…"}
          onClick={() =>
            void act("toggle", () => billing.updateEndpoint(organizationId, endpoint.id, { enabled: !endpoint.enabled }), () => undefined)
          }
        >
          {endpoint.enabled ? "Disable" : "Enable"}
        </Button>
        <Button tone="danger" busy={false} onClick={() => setRemoving(true)} aria-label={`Remove ${endpoint.url}`}>
          Remove
        </Button>
      </div>
      <ConfirmDialog
        open={removing}
        title="Remove this endpoint?"
        confirmLabel="Remove endpoint"
        busyLabel="Removing…"
        onClose={() => setRemoving(false)}
        onConfirm={async () => {
          const { error } = await settle(billing.deleteEndpoint(organizationId, endpoint.id));
          if (error) return error;
          setRemoving(false);
          await refreshBilling();
          return null;
        }}
      >
        <p>
          <code className="wrap-anywhere">{endpoint.url}</code> stops receiving events, and its delivery history goes with it.
        </p>
      </ConfirmDialog>
    </li>
  );
}
