"use client";
import { useState } from "react";
import { billing, type BillingEvent, type DeliveryStatus, type Endpoint } from "@/lib/billing";
import { describe, settle } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { t as translate, useT } from "@/lib/i18n/billing";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { SelectField } from "../SelectField";
import { EventDetailDialog, urlOf } from "./EventDetailDialog";
import { refreshBilling, useEndpoints, useEvents } from "./hooks";

const PAGE = 20;
/** The status filter's options, worded in the language of the moment. */
const STATUSES: { value: DeliveryStatus | ""; label: () => string }[] = [
  { value: "", label: () => translate("events.anyStatus") },
  { value: "pending", label: () => translate("events.statusPending") },
  { value: "delivered", label: () => translate("events.statusDelivered") },
  { value: "failed", label: () => translate("events.statusFailed") },
  { value: "skipped", label: () => translate("events.statusSkipped") },
];

/** The organization's event log, newest first, with each event's deliveries and replays. */
export function EventLog({ userId, organizationId }: { userId: string; organizationId: string }) {
  const t = useT();
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const [type, setType] = useState("");
  const [offset, setOffset] = useState(0);
  const filter = { ...(status ? { status } : {}), ...(type.trim() ? { type: type.trim() } : {}), limit: PAGE, offset };
  const { data, error, isLoading, mutate } = useEvents(userId, organizationId, filter);
  const endpoints = useEndpoints(userId, organizationId).data ?? [];

  return (
    <section className="card" aria-labelledby="event-log-title" aria-busy={isLoading || undefined}>
      <h2 id="event-log-title">{t("events.title")}</h2>
      <div className="form-row">
        <SelectField
          label={t("events.status")}
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as DeliveryStatus | "");
            setOffset(0);
          }}
        >
          {STATUSES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label()}
            </option>
          ))}
        </SelectField>
        <div className="field">
          <label htmlFor="event-type-filter">{t("events.type")}</label>
          <input
            id="event-type-filter"
            value={type}
            placeholder="order.paid"
            spellCheck={false}
            onChange={(e) => {
              setType(e.target.value);
              setOffset(0);
            }}
          />
        </div>
      </div>
      {error ? (
        <LoadError message={t("events.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("events.loading")}>
          <li className="skeleton-row" />
        </ul>
      ) : data && data.events.length > 0 ? (
        <>
          <ul className="list">
            {data.events.map((event) => (
              <EventRow key={event.id} event={event} endpoints={endpoints} userId={userId} organizationId={organizationId} />
            ))}
          </ul>
          <div className="actions">
            <button type="button" className="button button-secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              {t("events.newer")}
            </button>
            <button type="button" className="button button-secondary" disabled={!data.hasMore} onClick={() => setOffset(offset + PAGE)}>
              {t("events.older")}
            </button>
          </div>
        </>
      ) : (
        <p className="empty">{status || type ? t("events.noneMatch") : t("events.none")}</p>
      )}
    </section>
  );
}

function EventRow({ event, endpoints, userId, organizationId }: { event: BillingEvent; endpoints: Endpoint[]; userId: string; organizationId: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [replaying, setReplaying] = useState(false);
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string }>();

  async function replay() {
    setReplaying(true);
    setMessage(undefined);
    const { data, error } = await settle(billing.replay(organizationId, event.id));
    setReplaying(false);
    if (error) setMessage({ tone: "error", text: describe(error) });
    else setMessage({ tone: "success", text: t("event.replayed", { count: data?.deliveryIds.length ?? 0 }) });
    await refreshBilling();
  }

  return (
    <li className="list-row event-row" data-testid="event-row">
      <div className="billing-row-body">
        <strong>{event.type || t("event.unreadable")}</strong> <span className="muted">{event.origin === "test" ? t("event.test") : ""}</span>
        <p className="muted">{t("event.received", { date: formatDate(event.receivedAt) })}</p>
        <ul className="deliveries">
          {event.deliveries.map((d) => (
            <li key={d.id} data-testid="delivery">
              <span className={`badge badge-${d.status}`}>{t("delivery.status", { status: d.status })}</span> {urlOf(endpoints, d.endpointId)} ·{" "}
              {t("delivery.attempts", { count: d.attempts })}
              {d.status === "pending" && d.nextAttemptAt ? ` · ${t("delivery.next", { date: formatDate(d.nextAttemptAt) })}` : ""}
            </li>
          ))}
        </ul>
        <FormAlert message={message?.text} tone={message?.tone} />
      </div>
      <div className="actions">
        <button
          type="button"
          className="button button-secondary"
          aria-haspopup="dialog"
          aria-label={t("event.detailsLabel", { type: event.type || t("event.unreadable"), date: formatDate(event.receivedAt) })}
          onClick={() => setOpen(true)}
        >
          {t("event.details")}
        </button>
        <Button tone="secondary" busy={replaying} busyLabel={t("event.replaying")} disabled={event.deliveries.length === 0} onClick={() => void replay()}>
          {t("event.replay")}
        </Button>
      </div>
      <EventDetailDialog event={event} endpoints={endpoints} userId={userId} organizationId={organizationId} open={open} onClose={() => setOpen(false)} />
    </li>
  );
}
