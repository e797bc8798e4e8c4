"use client";
import useSWR, { mutate } from "swr";
import {
  billing,
  type BillingEvent,
  type CustomerBilling,
  type Endpoint,
  type EventDetail,
  type EventFilter,
  type EventPage,
  type OrganizationBilling,
} from "@/lib/billing";
import { addCodes, unwrap, type ApiError } from "@/lib/errors";
import { t } from "@/lib/i18n/billing";
import { keys } from "@/lib/session";

/** The billing API's refusals in the one table of `errors.ts`, with the field each is about. */
addCodes({
  INVALID_ENDPOINT_URL: { message: () => t("error.INVALID_ENDPOINT_URL"), fields: ["url"] },
  ENDPOINT_URL_NOT_ALLOWED: { message: () => t("error.ENDPOINT_URL_NOT_ALLOWED"), fields: ["url"] },
  INVALID_EVENT_TYPE: { message: () => t("error.INVALID_EVENT_TYPE"), fields: ["eventTypes"] },
  TOO_MANY_ENDPOINTS: { message: () => t("error.TOO_MANY_ENDPOINTS"), fields: [] },
  ENDPOINT_NOT_FOUND: { message: () => t("error.ENDPOINT_NOT_FOUND"), fields: [] },
  ENDPOINT_DISABLED: { message: () => t("error.ENDPOINT_DISABLED"), fields: [] },
  EVENT_NOT_FOUND: { message: () => t("error.EVENT_NOT_FOUND"), fields: [] },
});

/** The signed-in user's subscriptions, benefits and meters, as the payments platform last told them. */
export function useCustomerBilling(userId: string) {
  return useSWR<CustomerBilling | null, ApiError>(keys.customerBilling(userId), () => unwrap(billing.customer()));
}

/** What was bought for the organization. */
export function useOrganizationBilling(userId: string, organizationId: string) {
  return useSWR<OrganizationBilling | null, ApiError>(keys.organizationBilling(userId, organizationId), () =>
    unwrap(billing.organization(organizationId)),
  );
}

export function useEndpoints(userId: string, organizationId: string) {
  return useSWR<Endpoint[] | null, ApiError>(keys.endpoints(userId, organizationId), () => unwrap(billing.listEndpoints(organizationId)));
}

/** The event log, refreshed every few seconds while deliveries are still pending. */
export function useEvents(userId: string, organizationId: string, filter: EventFilter) {
  return useSWR<EventPage | null, ApiError>(
    keys.billingEvents(userId, organizationId, JSON.stringify(filter)),
    () => unwrap(billing.listEvents(organizationId, filter)),
    { refreshInterval: (page) => (page?.events.some(pending) ? 2000 : 10_000) },
  );
}

/** One event with its payload and attempts, read again every few seconds while a delivery is pending. */
export function useEvent(userId: string, organizationId: string, eventId: string) {
  return useSWR<EventDetail | null, ApiError>(
    keys.billingEvent(userId, organizationId, eventId),
    () => unwrap(billing.event(organizationId, eventId)),
    { refreshInterval: (event) => (event && pending(event) ? 2000 : 0) },
  );
}

function pending(event: Pick<BillingEvent, "deliveries">) {
  return event.deliveries.some((d) => d.status === "pending");
}

/** Reads every billing read again (endpoints, the log, open events). */
export function refreshBilling() {
  return mutate((key) => Array.isArray(key) && typeof key[0] === "string" && key[0].startsWith("billing/"));
}
