import type { OrderJson, SubscriptionJson } from "@/lib/billing";
import { formatDate } from "@/lib/format";

/** An amount in the currency's minor units, as the payments platform sends it. */
export function money(amount: number | null | undefined, currency: string | null | undefined) {
  if (amount == null || !currency) return "";
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    return `${amount / 100} ${currency}`;
  }
}

/** "$20.00 a month · renews 28 Oct 2026". */
export function describeSubscription(s: SubscriptionJson) {
  const price = money(s.amount, s.currency);
  const every = s.recurring_interval ? ` a ${s.recurring_interval}` : "";
  const renews = s.current_period_end ? `${s.cancel_at_period_end ? "ends" : "renews"} ${formatDate(s.current_period_end)}` : "";
  return [price ? `${price}${every}` : "", renews].filter(Boolean).join(" · ");
}

/** "$21.74 · 14 Sep 2026 · ACME-0042". */
export function describeOrder(o: OrderJson) {
  return [money(o.total_amount, o.currency), o.created_at ? formatDate(o.created_at) : "", o.invoice_number ?? ""].filter(Boolean).join(" · ");
}
