"use client";
import { formatDate } from "@/lib/format";
import type { CustomerBilling, SubscriptionJson } from "@/lib/billing";
import { useT } from "@/lib/i18n/account";
import { meterNames } from "../billing/describe";
import { useCustomerBilling } from "../billing/hooks";
import { SubscriptionList } from "../billing/SubscriptionList";
import { LoadError } from "../LoadError";

/** The signed-in user's subscriptions, granted benefits and meters, as the payments platform last told them. */
export function BillingSection({ userId }: { userId: string }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useCustomerBilling(userId);
  const subscriptions = activeSubscriptions(data);
  const benefits = data?.state?.granted_benefits ?? [];
  const meters = data?.state?.active_meters ?? [];
  const names = meterNames([...(data?.subscriptions ?? []), ...subscriptions]);
  return (
    <section className="card" aria-labelledby="billing-title" aria-busy={isLoading || undefined}>
      <h2 id="billing-title">{t("billing.title")}</h2>
      {error ? (
        <LoadError message={t("billing.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("billing.loading")}>
          <li className="skeleton-row" />
        </ul>
      ) : subscriptions.length === 0 && benefits.length === 0 && meters.length === 0 ? (
        <p className="empty">{t("billing.empty")}</p>
      ) : (
        <>
          <h3>{t("billing.subscriptions")}</h3>
          <SubscriptionList subscriptions={subscriptions} empty={t("billing.noSubscription")} testId="subscription-row" />
          <h3>{t("billing.benefits")}</h3>
          {benefits.length > 0 ? (
            <ul className="list">
              {benefits.map((b) => (
                <li key={b.id} className="list-row" data-testid="benefit-row">
                  <div>
                    <strong>{b.benefit_type.replaceAll("_", " ")}</strong>
                    <p className="muted">{t("billing.granted", { date: formatDate(b.granted_at) })}</p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="empty">{t("billing.noBenefits")}</p>
          )}
          {meters.length > 0 ? (
            <>
              <h3 id="billing-usage-title">{t("billing.usage")}</h3>
              {/* Scrolls inside itself when the columns are wider than a phone (focusable, so keys scroll it). */}
              <div className="billing-scroll" role="region" aria-labelledby="billing-usage-title" tabIndex={0}>
                <table className="billing-meters" aria-label={t("billing.meters")}>
                  <thead>
                    <tr>
                      <th scope="col">{t("billing.meter")}</th>
                      <th scope="col">{t("billing.consumed")}</th>
                      <th scope="col">{t("billing.credited")}</th>
                      <th scope="col">{t("billing.balance")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {meters.map((m) => (
                      <tr key={m.id} data-testid="meter-row">
                        {/* Its name where a subscription tells it; the id only when none does. */}
                        <td>{names.get(m.meter_id) ?? m.meter_id}</td>
                        <td>{m.consumed_units}</td>
                        <td>{m.credited_units}</td>
                        <td>{m.balance}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}

/**
 * The state's active subscriptions (newest), each with its product from the subscription's own
 * JSON where the state leaves it out; without a state, the active and trialing subscriptions.
 */
function activeSubscriptions(data: CustomerBilling | null | undefined): SubscriptionJson[] {
  const all = data?.subscriptions ?? [];
  const active = data?.state?.active_subscriptions;
  if (!active) return all.filter((s) => s.status === "active" || s.status === "trialing");
  return active.map((s) => (s.product ? s : { ...s, product: all.find((full) => full.id === s.id)?.product ?? null }));
}
