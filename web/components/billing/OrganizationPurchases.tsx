"use client";
import { formatDate } from "@/lib/format";
import { LoadError } from "../LoadError";
import { describeOrder } from "./describe";
import { useOrganizationBilling } from "./hooks";
import { SubscriptionList } from "./SubscriptionList";

/** What was bought for the organization: its subscriptions, orders and the benefits they grant. */
export function OrganizationPurchases({ userId, organizationId }: { userId: string; organizationId: string }) {
  const { data, error, isLoading, mutate } = useOrganizationBilling(userId, organizationId);
  const subscriptions = data?.subscriptions ?? [];
  const orders = data?.orders ?? [];
  const grants = data?.benefitGrants ?? [];
  return (
    <section className="card" aria-labelledby="purchases-title" aria-busy={isLoading || undefined}>
      <h2 id="purchases-title">Subscriptions and orders</h2>
      {error ? (
        <LoadError what="the organization's billing" error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label="Loading subscriptions and orders">
          <li className="skeleton-row" />
        </ul>
      ) : subscriptions.length === 0 && orders.length === 0 ? (
        <p className="empty">Nothing has been bought for this organization yet.</p>
      ) : (
        <>
          <h3>Subscriptions</h3>
          <SubscriptionList subscriptions={subscriptions} empty="No subscription." testId="organization-subscription-row" />
          <h3>Orders</h3>
          {orders.length > 0 ? (
            <ul className="list">
              {orders.map((o) => (
                <li key={o.id} className="list-row" data-testid="organization-order-row">
                  <div>
                    <strong>{o.product?.name ?? "Order"}</strong> <span className="muted">({o.status})</span>
                    <p className="muted">{describeOrder(o)}</p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="empty">No orders.</p>
          )}
          {grants.length > 0 ? (
            <>
              <h3>Benefits</h3>
              <ul className="list">
                {grants.map((g) => (
                  <li key={g.id} className="list-row" data-testid="organization-benefit-row">
                    <div>
                      <strong>{g.benefit?.description ?? g.benefit?.type?.replaceAll("_", " ") ?? "Benefit"}</strong>{" "}
                      <span className="muted">({g.is_revoked ? "revoked" : g.is_granted ? "granted" : "pending"})</span>
                      {g.granted_at ? <p className="muted">Granted {formatDate(g.granted_at)}</p> : null}
                    </div>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
