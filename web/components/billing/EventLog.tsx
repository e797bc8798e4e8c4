"use client";
import { useState } from "react";
import { billing, type BillingEvent, type Delivery, type DeliveryStatus, type Endpoint } from "@/lib/billing";
import { describe, settle } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { t as translate, useT } from "@/lib/i18n/billing";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { SelectField } from "../SelectField";
import { refreshBilling, useEndpoints, useEvent, useEvents } from "./hooks";

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

function urlOf(endpoints: Endpoint[], id: string) {
  return endpoints.find((e) => e.id === id)?.url ?? translate("event.removedEndpoint");
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
      <div>
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
        {open ? <Attempts userId={userId} organizationId={organizationId} eventId={event.id} endpoints={endpoints} /> : null}
      </div>
      <div className="actions">
        <button type="button" className="button button-secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t("event.hideAttempts") : t("event.showAttempts")}
        </button>
        <Button tone="secondary" busy={replaying} busyLabel={t("event.replaying")} disabled={event.deliveries.length === 0} onClick={() => void replay()}>
          {t("event.replay")}
        </Button>
      </div>
    </li>
  );
}

function Attempts({ userId, organizationId, eventId, endpoints }: { userId: string; organizationId: string; eventId: string; endpoints: Endpoint[] }) {
  const t = useT();
  const { data, error } = useEvent(userId, organizationId, eventId);
  if (error) return <p role="alert" className="alert alert-error">{describe(error)}</p>;
  if (!data) return <p aria-busy="true">{t("attempts.loading")}</p>;
  return (
    <div className="attempts">
      {data.deliveries.map((d: Delivery) => (
        <table key={d.id} aria-label={t("attempts.label", { url: urlOf(endpoints, d.endpointId) })}>
          <thead>
            <tr>
              <th scope="col">{t("attempts.when")}</th>
              <th scope="col">{t("attempts.answer")}</th>
              <th scope="col">{t("attempts.time")}</th>
              <th scope="col">{t("attempts.trigger")}</th>
            </tr>
          </thead>
          <tbody>
            {(d.attemptLog ?? []).map((a) => (
              <tr key={a.id} data-testid="attempt">
                <td>{formatDate(a.startedAt)}</td>
                <td>{a.responseStatus ?? a.error ?? "—"}</td>
                <td>{t("attempts.duration", { ms: a.durationMs })}</td>
                <td>{t("attempts.triggerValue", { trigger: a.trigger })}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
