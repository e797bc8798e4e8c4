import type { SubscriptionJson } from "@/lib/billing";
import { useT } from "@/lib/i18n/billing";
import { describeSubscription } from "./describe";

/** Subscriptions as the account and organization billing sections list them: product, status, price and renewal. */
export function SubscriptionList({ subscriptions, empty, testId }: { subscriptions: SubscriptionJson[]; empty: string; testId: string }) {
  const t = useT();
  if (subscriptions.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ul className="list">
      {subscriptions.map((s) => (
        <li key={s.id} className="list-row" data-testid={testId}>
          <div>
            <strong>{s.product?.name ?? t("subscriptions.subscription")}</strong> <span className="muted">({s.status})</span>
            <p className="muted">{describeSubscription(s)}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
