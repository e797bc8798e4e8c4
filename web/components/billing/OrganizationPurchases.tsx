"use client";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/billing";
import { LoadError } from "../LoadError";
import { describeOrder } from "./describe";
import { useOrganizationBilling } from "./hooks";
import { SubscriptionList } from "./SubscriptionList";

/** What was bought for the organization: its subscriptions, orders and the benefits they grant. */
export function OrganizationPurchases({ userId, organizationId }: { userId: string; organizationId: string }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useOrganizationBilling(userId, organizationId);
  const subscriptions = data?.subscriptions ?? [];
  const orders = data?.orders ?? [];
  const grants = data?.benefitGrants ?? [];
  return (
    <section className="card" aria-labelledby="purchases-title" aria-busy={isLoading || undefined}>
      <h2 id="purchases-title">{t("purchases.title")}</h2>
      {error ? (
        <LoadError message={t("purchases.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("purchases.loading")}>
          <li className="skeleton-row" />
        </ul>
      ) : subscriptions.length === 0 && orders.length === 0 ? (
        <p className="empty">{t("purchases.empty")}</p>
      ) : (
        <>
          <h3>{t("purchases.subscriptions")}</h3>
          <SubscriptionList subscriptions={subscriptions} empty={t("purchases.noSubscription")} testId="organization-subscription-row" />
          <h3>{t("purchases.orders")}</h3>
          {orders.length > 0 ? (
            <ul className="list">
              {orders.map((o) => (
                <li key={o.id} className="list-row" data-testid="organization-order-row">
                  <div>
                    <strong>{o.product?.name ?? t("purchases.order")}</strong> <span className="muted">({o.status})</span>
                    <p className="muted">{describeOrder(o)}</p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="empty">{t("purchases.noOrders")}</p>
          )}
          {grants.length > 0 ? (
            <>
              <h3>{t("purchases.benefits")}</h3>
              <ul className="list">
                {grants.map((g) => (
                  <li key={g.id} className="list-row" data-testid="organization-benefit-row">
                    <div>
                      <strong>{g.benefit?.description ?? g.benefit?.type?.replaceAll("_", " ") ?? t("purchases.benefit")}</strong>{" "}
                      <span className="muted">({t("purchases.grantState", { state: g.is_revoked ? "revoked" : g.is_granted ? "granted" : "pending" })})</span>
                      {g.granted_at ? <p className="muted">{t("purchases.granted", { date: formatDate(g.granted_at) })}</p> : null}
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
