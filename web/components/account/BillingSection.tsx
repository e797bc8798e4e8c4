"use client";
import { formatDate } from "@/lib/format";
import { useCustomerBilling } from "../billing/hooks";
import { SubscriptionList } from "../billing/SubscriptionList";
import { LoadError } from "../LoadError";

/** The signed-in user's subscriptions, granted benefits and meters, as the payments platform last told them. */
export function BillingSection({ userId }: { userId: string }) {
  const { data, error, isLoading, mutate } = useCustomerBilling(userId);
  const subscriptions = data?.state?.active_subscriptions ?? data?.subscriptions.filter((s) => s.status === "active" || s.status === "trialing") ?? [];
  const benefits = data?.state?.granted_benefits ?? [];
  const meters = data?.state?.active_meters ?? [];
  return (
    <section className="card" aria-labelledby="billing-title" aria-busy={isLoading || undefined}>
      <h2 id="billing-title">Billing</h2>
      {error ? (
        <LoadError what="your billing" error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label="Loading billing">
          <li className="skeleton-row" />
        </ul>
      ) : subscriptions.length === 0 && benefits.length === 0 && meters.length === 0 ? (
        <p className="empty">No subscriptions or benefits yet.</p>
      ) : (
        <>
          <h3>Subscriptions</h3>
          <SubscriptionList subscriptions={subscriptions} empty="No active subscription." testId="subscription-row" />
          <h3>Benefits</h3>
          {benefits.length > 0 ? (
            <ul className="list">
              {benefits.map((b) => (
                <li key={b.id} className="list-row" data-testid="benefit-row">
                  <div>
                    <strong>{b.benefit_type.replaceAll("_", " ")}</strong>
                    <p className="muted">Granted {formatDate(b.granted_at)}</p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="empty">No benefits granted.</p>
          )}
          {meters.length > 0 ? (
            <>
              <h3>Usage</h3>
              <table aria-label="Meters">
                <thead>
                  <tr>
                    <th scope="col">Meter</th>
                    <th scope="col">Consumed</th>
                    <th scope="col">Credited</th>
                    <th scope="col">Balance</th>
                  </tr>
                </thead>
                <tbody>
                  {meters.map((m) => (
                    <tr key={m.id} data-testid="meter-row">
                      <td>{m.meter_id}</td>
                      <td>{m.consumed_units}</td>
                      <td>{m.credited_units}</td>
                      <td>{m.balance}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
