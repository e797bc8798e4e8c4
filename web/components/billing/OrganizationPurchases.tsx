"use client";
import useSWR from "swr";
import { billing, type OrganizationBilling } from "@/lib/billing";
import { describe, unwrap, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { keys } from "@/lib/session";
import { describeOrder } from "./describe";
import { SubscriptionList } from "./SubscriptionList";

/** What was bought for the organization: its subscriptions, orders and the benefits they grant. */
export function OrganizationPurchases({ userId, organizationId }: { userId: string; organizationId: string }) {
  const { data, error, isLoading, mutate } = useSWR<OrganizationBilling | null, ApiError>(keys.organizationBilling(userId, organizationId), () =>
    unwrap(billing.organization(organizationId)),
  );
  const subscriptions = data?.subscriptions ?? [];
  const orders = data?.orders ?? [];
  const grants = data?.benefitGrants ?? [];
  return (
    <section className="card" aria-labelledby="purchases-title" aria-busy={isLoading || undefined}>
      <h2 id="purchases-title">Subscriptions and orders</h2>
      {error ? (
        <div role="alert" className="alert alert-error">
          We could not load the organization&apos;s billing. {describe(error)}{" "}
          <button type="button" className="link-button" onClick={() => void mutate()}>
            Try again
          </button>
        </div>
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
