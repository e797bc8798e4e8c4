"use client";
import { useId, useRef } from "react";
import type { BillingEvent, Endpoint } from "@/lib/billing";
import { formatDate } from "@/lib/format";
import { t as translate, useT } from "@/lib/i18n/billing";
import { rich } from "@/lib/i18n/rich";
import { Dialog } from "../Dialog";
import { LoadError } from "../LoadError";
import { AttemptList } from "./AttemptList";
import { CopyButton } from "./CopyButton";
import { useEvent } from "./hooks";

/** The URL of the endpoint `id`, or a word for one removed since. */
export function urlOf(endpoints: Endpoint[], id: string) {
  return endpoints.find((e) => e.id === id)?.url ?? translate("event.removedEndpoint");
}

/** The payload as it reads best: JSON indented, anything else (a body that was not JSON) as it came. */
export function payloadText(payload: unknown): string {
  return typeof payload === "string" ? payload : JSON.stringify(payload, null, 2);
}

interface Props {
  event: BillingEvent;
  endpoints: Endpoint[];
  userId: string;
  organizationId: string;
  open: boolean;
  onClose: () => void;
}

/** One event: its payload as received, and each delivery's attempts with the answers they got. */
export function EventDetailDialog({ event, open, onClose, ...rest }: Props) {
  const t = useT();
  return (
    <Dialog open={open} title={event.type || t("event.unreadable")} onClose={onClose}>
      {/* Read when opened, not for every row of the log. */}
      <EventDetailBody event={event} {...rest} />
    </Dialog>
  );
}

function EventDetailBody({ event, endpoints, userId, organizationId }: Omit<Props, "open" | "onClose">) {
  const t = useT();
  const { data, error, mutate } = useEvent(userId, organizationId, event.id);
  const payloadId = useId();
  const payload = useRef<HTMLPreElement>(null);
  if (error) return <LoadError message={t("eventDetail.loadFailed")} error={error} retry={mutate} />;
  if (!data) return <p aria-busy="true">{t("eventDetail.loading")}</p>;
  const text = payloadText(data.payload as unknown);
  return (
    <div className="billing-event-detail" data-testid="event-detail">
      <p className="muted wrap-anywhere">
        {t("event.received", { date: formatDate(data.receivedAt) })} ·{" "}
        {rich(t("eventDetail.webhookId", { id: data.webhookId }), { code: () => <code>{data.webhookId}</code> })}
      </p>
      <h3 id={payloadId}>{t("eventDetail.payload")}</h3>
      <pre ref={payload} className="billing-pre" tabIndex={0} role="region" aria-labelledby={payloadId} data-testid="event-payload">
        {text}
      </pre>
      <CopyButton text={text} label={t("eventDetail.copyPayload")} select={payload} />
      <h3>{t("eventDetail.deliveries")}</h3>
      {data.deliveries.length === 0 ? (
        <p className="muted">{t("eventDetail.noDeliveries")}</p>
      ) : (
        data.deliveries.map((d) => (
          <section key={d.id} className="billing-delivery" aria-label={t("attempts.label", { url: urlOf(endpoints, d.endpointId) })}>
            <h4 className="wrap-anywhere">
              <span className={`badge badge-${d.status}`}>{t("delivery.status", { status: d.status })}</span> {urlOf(endpoints, d.endpointId)}
            </h4>
            <AttemptList attempts={d.attemptLog ?? []} />
          </section>
        ))
      )}
    </div>
  );
}
