"use client";
import { useState } from "react";
import { billing, type Endpoint, type EndpointSecret } from "@/lib/billing";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/billing";
import { rich } from "@/lib/i18n/rich";
import { Button } from "../Button";
import { ConfirmDialog } from "../ConfirmDialog";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { EditEndpointDialog } from "./EditEndpointDialog";
import { refreshBilling, useEndpoints } from "./hooks";
import { SecretPanel } from "./SecretPanel";

/** The organization's endpoints, each with what its managers can do to it. */
export function EndpointsSection({ userId, organizationId }: { userId: string; organizationId: string }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useEndpoints(userId, organizationId);
  return (
    <section className="card" aria-labelledby="endpoints-title" aria-busy={isLoading || undefined}>
      <h2 id="endpoints-title">{t("endpoints.title")}</h2>
      {error ? (
        <LoadError message={t("endpoints.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("endpoints.loading")}>
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length > 0 ? (
        <ul className="list">
          {data.map((endpoint) => (
            <EndpointRow key={endpoint.id} endpoint={endpoint} organizationId={organizationId} />
          ))}
        </ul>
      ) : (
        <p className="empty">{t("endpoints.empty")}</p>
      )}
    </section>
  );
}

function EndpointRow({ endpoint, organizationId }: { endpoint: Endpoint; organizationId: string }) {
  const t = useT();
  const [busy, setBusy] = useState<string>();
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string }>();
  const [secret, setSecret] = useState<EndpointSecret>();
  const [removing, setRemoving] = useState(false);
  const [editing, setEditing] = useState(false);

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

  const types = endpoint.eventTypes.length > 0 ? endpoint.eventTypes.join(", ") : t("endpoint.everyType");
  return (
    <li className="list-row endpoint-row" data-testid="endpoint-row">
      <div className="billing-row-body">
        <strong className="wrap-anywhere">{endpoint.url}</strong>
        <p className="muted">
          {endpoint.description ? `${endpoint.description} · ` : ""}
          {types} · {endpoint.polarSigning ? t("endpoint.signedPolar") : t("endpoint.signedStandard")} ·{" "}
          <span data-testid="endpoint-state">{endpoint.enabled ? t("endpoint.enabled") : t("endpoint.disabled")}</span>
        </p>
        {endpoint.disabledReason ? <p className="alert alert-error">{endpoint.disabledReason}</p> : null}
        {endpoint.failingSince && endpoint.enabled ? (
          <p className="muted">{t("endpoint.failingSince", { date: formatDate(endpoint.failingSince) })}</p>
        ) : null}
        {secret ? <SecretPanel secret={secret} /> : null}
        <FormAlert message={message?.text} tone={message?.tone} />
      </div>
      <div className="actions">
        <Button
          tone="secondary"
          busy={false}
          aria-haspopup="dialog"
          aria-label={t("endpoint.editLabel", { url: endpoint.url })}
          onClick={() => {
            setMessage(undefined);
            setEditing(true);
          }}
        >
          {t("endpoint.edit")}
        </Button>
        <Button
          tone="secondary"
          busy={busy === "secret"}
          busyLabel={t("endpoint.revealing")}
          onClick={() =>
            secret
              ? setSecret(undefined)
              : void act("secret", () => billing.secret(organizationId, endpoint.id), (data) => {
                  if (data) setSecret(data);
                  return undefined;
                })
          }
        >
          {secret ? t("endpoint.hideSecret") : t("endpoint.revealSecret")}
        </Button>
        <Button
          tone="secondary"
          busy={busy === "rotate"}
          busyLabel={t("endpoint.rotating")}
          onClick={() =>
            void act("rotate", () => billing.rotateSecret(organizationId, endpoint.id), () => {
              setSecret(undefined);
              return t("endpoint.rotated");
            })
          }
        >
          {t("endpoint.rotateSecret")}
        </Button>
        <Button
          tone="secondary"
          busy={busy === "test"}
          busyLabel={t("endpoint.sending")}
          disabled={!endpoint.enabled}
          onClick={() =>
            void act("test", () => billing.sendTest(organizationId, endpoint.id), () => t("endpoint.testSent"))
          }
        >
          {t("endpoint.sendTest")}
        </Button>
        <Button
          tone="secondary"
          busy={busy === "toggle"}
          busyLabel={endpoint.enabled ? t("endpoint.disabling") : t("endpoint.enabling")}
          onClick={() =>
            void act("toggle", () => billing.updateEndpoint(organizationId, endpoint.id, { enabled: !endpoint.enabled }), () => undefined)
          }
        >
          {endpoint.enabled ? t("endpoint.disable") : t("endpoint.enable")}
        </Button>
        <Button tone="danger" busy={false} onClick={() => setRemoving(true)} aria-label={t("endpoint.removeLabel", { url: endpoint.url })}>
          {t("endpoint.remove")}
        </Button>
      </div>
      <EditEndpointDialog
        endpoint={endpoint}
        organizationId={organizationId}
        open={editing}
        onClose={() => setEditing(false)}
        onSaved={async () => {
          setMessage({ tone: "success", text: t("endpoint.saved") });
          await refreshBilling();
        }}
      />
      <ConfirmDialog
        open={removing}
        title={t("endpoint.removeTitle")}
        confirmLabel={t("endpoint.removeConfirm")}
        busyLabel={t("endpoint.removing")}
        onClose={() => setRemoving(false)}
        onConfirm={async () => {
          const { error } = await settle(billing.deleteEndpoint(organizationId, endpoint.id));
          if (error) return error;
          setRemoving(false);
          await refreshBilling();
          return null;
        }}
      >
        <p>{rich(t("endpoint.removeBody", { url: endpoint.url }), { code: () => <code className="wrap-anywhere">{endpoint.url}</code> })}</p>
      </ConfirmDialog>
    </li>
  );
}
