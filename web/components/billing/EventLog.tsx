"use client";
import { useState } from "react";
import { billing, type BillingEvent, type Delivery, type DeliveryStatus, type Endpoint } from "@/lib/billing";
import { describe, settle } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { SelectField } from "../SelectField";
import { refreshBilling, useEndpoints, useEvent, useEvents } from "./hooks";

const PAGE = 20;
const STATUSES: { value: DeliveryStatus | ""; label: string }[] = [
  { value: "", label: "Any status" },
  { value: "pending", label: "Pending" },
  { value: "delivered", label: "Delivered" },
  { value: "failed", label: "Failed" },
  { value: "skipped", label: "Skipped" },
];

/** The organization's event log, newest first, with each event's deliveries and replays. */
export function EventLog({ userId, organizationId }: { userId: string; organizationId: string }) {
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const [type, setType] = useState("");
  const [offset, setOffset] = useState(0);
  const filter = { ...(status ? { status } : {}), ...(type.trim() ? { type: type.trim() } : {}), limit: PAGE, offset };
  const { data, error, isLoading, mutate } = useEvents(userId, organizationId, filter);
  const endpoints = useEndpoints(userId, organizationId).data ?? [];

  return (
    <section className="card" aria-labelledby="event-log-title" aria-busy={isLoading || undefined}>
      <h2 id="event-log-title">Event log</h2>
      <div className="form-row">
        <SelectField
          label="Delivery status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as DeliveryStatus | "");
            setOffset(0);
          }}
        >
          {STATUSES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </SelectField>
        <div className="field">
          <label htmlFor="event-type-filter">Event type</label>
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
        <LoadError what="the event log" error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label="Loading events">
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
              Newer
            </button>
            <button type="button" className="button button-secondary" disabled={!data.hasMore} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </div>
        </>
      ) : (
        <p className="empty">No events {status || type ? "match these filters" : "yet"}.</p>
      )}
    </section>
  );
}

function urlOf(endpoints: Endpoint[], id: string) {
  return endpoints.find((e) => e.id === id)?.url ?? "a removed endpoint";
}

function EventRow({ event, endpoints, userId, organizationId }: { event: BillingEvent; endpoints: Endpoint[]; userId: string; organizationId: string }) {
  const [open, setOpen] = useState(false);
  const [replaying, setReplaying] = useState(false);
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string }>();

  async function replay() {
    setReplaying(true);
    setMessage(undefined);
    const { data, error } = await settle(billing.replay(organizationId, event.id));
    setReplaying(false);
    if (error) setMessage({ tone: "error", text: describe(error) });
    else setMessage({ tone: "success", text: `Sent again to ${data?.deliveryIds.length ?? 0} endpoint(s).` });
    await refreshBilling();
  }

  return (
    <li className="list-row event-row" data-testid="event-row">
      <div>
        <strong>{event.type || "(unreadable)"}</strong> <span className="muted">{event.origin === "test" ? "· test" : ""}</span>
        <p className="muted">Received {formatDate(event.receivedAt)}</p>
        <ul className="deliveries">
          {event.deliveries.map((d) => (
            <li key={d.id} data-testid="delivery">
              <span className={`badge badge-${d.status}`}>{d.status}</span> {urlOf(endpoints, d.endpointId)} ·{" "}
              {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
              {d.status === "pending" && d.nextAttemptAt ? ` · next ${formatDate(d.nextAttemptAt)}` : ""}
            </li>
          ))}
        </ul>
        <FormAlert message={message?.text} tone={message?.tone} />
        {open ? <Attempts userId={userId} organizationId={organizationId} eventId={event.id} endpoints={endpoints} /> : null}
      </div>
      <div className="actions">
        <button type="button" className="button button-secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Hide attempts" : "Attempts"}
        </button>
        <Button tone="secondary" busy={replaying} busyLabel="Replaying…" disabled={event.deliveries.length === 0} onClick={() => void replay()}>
          Replay
        </Button>
      </div>
    </li>
  );
}

function Attempts({ userId, organizationId, eventId, endpoints }: { userId: string; organizationId: string; eventId: string; endpoints: Endpoint[] }) {
  const { data, error } = useEvent(userId, organizationId, eventId);
  if (error) return <p role="alert" className="alert alert-error">{describe(error)}</p>;
  if (!data) return <p aria-busy="true">Loading attempts…</p>;
  return (
    <div className="attempts">
      {data.deliveries.map((d: Delivery) => (
        <table key={d.id} aria-label={`Attempts at ${urlOf(endpoints, d.endpointId)}`}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Answer</th>
              <th scope="col">Time</th>
              <th scope="col">Trigger</th>
            </tr>
          </thead>
          <tbody>
            {(d.attemptLog ?? []).map((a) => (
              <tr key={a.id} data-testid="attempt">
                <td>{formatDate(a.startedAt)}</td>
                <td>{a.responseStatus ?? a.error ?? "—"}</td>
                <td>{a.durationMs} ms</td>
                <td>{a.trigger}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
