import type { OrderJson, SubscriptionJson } from "@/lib/billing";
import { formatDate } from "@/lib/format";
import { format } from "@/lib/i18n";
import { t } from "@/lib/i18n/billing";

/** An amount in the currency's minor units, as the payments platform sends it. */
export function money(amount: number | null | undefined, currency: string | null | undefined) {
  if (amount == null || !currency) return "";
  try {
    return format.number(amount / 100, { style: "currency", currency: currency.toUpperCase() });
  } catch {
    return `${amount / 100} ${currency}`;
  }
}

/** "$20.00 a month · renews 28 Oct 2026". */
export function describeSubscription(s: SubscriptionJson) {
  const price = money(s.amount, s.currency);
  const per = price && s.recurring_interval ? t("describe.pricePer", { price, interval: s.recurring_interval }) : price;
  const date = s.current_period_end ? formatDate(s.current_period_end) : "";
  const renews = date ? (s.cancel_at_period_end ? t("describe.ends", { date }) : t("describe.renews", { date })) : "";
  return [per, renews].filter(Boolean).join(" · ");
}

/** "$21.74 · 14 Sep 2026 · ACME-0042". */
export function describeOrder(o: OrderJson) {
  return [money(o.total_amount, o.currency), o.created_at ? formatDate(o.created_at) : "", o.invoice_number ?? ""].filter(Boolean).join(" · ");
}

/**
 * Each meter's name by its id. The customer's state names meters by id only; the
 * subscriptions (the payments platform's full JSON) carry each meter with its name, on the
 * subscription's meters and on its metered prices.
 */
export function meterNames(subscriptions: readonly SubscriptionJson[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const s of subscriptions) {
    for (const { meter } of [...(s.meters ?? []), ...(s.prices ?? [])]) {
      const name = meter?.name?.trim();
      if (meter?.id && name && !names.has(meter.id)) names.set(meter.id, name);
    }
  }
  return names;
}
