/**
 * The billing API (`/api/billing`): an organization's webhook endpoints, the events sent to
 * them and replays. Not better-auth's protocol, so not its client: the same `{ data, error }`
 * answers, from `fetch` with the session cookie, so forms and SWR treat both alike.
 */
import type { ApiError } from "./errors";

export interface Endpoint {
  id: string;
  organizationId: string;
  url: string;
  description: string;
  /** Empty: every type. */
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  polarSigning: boolean;
  failingSince: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointSecret {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}

export interface Attempt {
  id: string;
  trigger: "scheduled" | "manual";
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  succeeded: boolean;
}

export type DeliveryStatus = "pending" | "delivered" | "failed" | "skipped";

export interface Delivery {
  id: string;
  endpointId: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  attemptLog?: Attempt[];
}

export interface BillingEvent {
  id: string;
  webhookId: string;
  type: string;
  timestamp: string | null;
  receivedAt: string;
  origin: "polar" | "test";
  deliveries: Delivery[];
}

export interface EventPage {
  events: BillingEvent[];
  hasMore: boolean;
}

export interface EventDetail extends BillingEvent {
  payload: unknown;
}

/** The payments platform's own JSON for each entity (snake_case), read for what the page shows. */
export interface CustomerBilling {
  customer: Record<string, unknown> | null;
  state: CustomerStateJson | null;
  subscriptions: SubscriptionJson[];
  orders: Record<string, unknown>[];
  benefitGrants: Record<string, unknown>[];
  refunds: Record<string, unknown>[];
}

/** What was bought for an organization (`metadata.referenceId`), with the grants and refunds of it. */
export interface OrganizationBilling {
  organizationId: string;
  subscriptions: SubscriptionJson[];
  orders: OrderJson[];
  benefitGrants: BenefitGrantJson[];
  refunds: Record<string, unknown>[];
}

export interface OrderJson {
  id: string;
  status: string;
  total_amount?: number | null;
  currency?: string | null;
  created_at?: string | null;
  invoice_number?: string | null;
  product?: { name?: string } | null;
}

export interface BenefitGrantJson {
  id: string;
  is_granted?: boolean;
  is_revoked?: boolean;
  granted_at?: string | null;
  benefit?: { type?: string; description?: string } | null;
}

export interface SubscriptionJson {
  id: string;
  status: string;
  amount?: number | null;
  currency?: string | null;
  recurring_interval?: string | null;
  current_period_end?: string | null;
  cancel_at_period_end?: boolean;
  product?: { name?: string } | null;
}

export interface CustomerStateJson {
  active_subscriptions?: SubscriptionJson[];
  granted_benefits?: { id: string; benefit_type: string; granted_at?: string; properties?: Record<string, unknown> }[];
  active_meters?: { id: string; meter_id: string; consumed_units: number; credited_units: number; balance: number }[];
}

export interface EndpointInput {
  url?: string;
  description?: string;
  eventTypes?: string[];
  enabled?: boolean;
  polarSigning?: boolean;
}

export interface EventFilter {
  type?: string;
  status?: DeliveryStatus;
  limit?: number;
  offset?: number;
}

type Answer<T> = Promise<{ data: T | null; error: ApiError | null }>;

async function call<T>(method: string, path: string, body?: unknown): Answer<T> {
  const response = await fetch(`/api/billing${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = (json ?? {}) as { code?: string; message?: string };
    return { data: null, error: { status: response.status, statusText: response.statusText, code: error.code, message: error.message } };
  }
  return { data: json as T, error: null };
}

const org = (organizationId: string) => `organizationId=${encodeURIComponent(organizationId)}`;
const one = (id: string) => encodeURIComponent(id);

export const billing = {
  customer: () => call<CustomerBilling>("GET", "/customer"),
  organization: (organizationId: string) => call<OrganizationBilling>("GET", `/customer/organization?${org(organizationId)}`),
  listEndpoints: (organizationId: string) => call<Endpoint[]>("GET", `/endpoints?${org(organizationId)}`),
  createEndpoint: (organizationId: string, input: EndpointInput) =>
    call<Endpoint>("POST", "/endpoints", { ...input, organizationId }),
  updateEndpoint: (organizationId: string, id: string, input: EndpointInput) =>
    call<Endpoint>("PATCH", `/endpoints/${one(id)}`, { ...input, organizationId }),
  deleteEndpoint: (organizationId: string, id: string) => call<{ status: boolean }>("DELETE", `/endpoints/${one(id)}?${org(organizationId)}`),
  secret: (organizationId: string, id: string) => call<EndpointSecret>("GET", `/endpoints/${one(id)}/secret?${org(organizationId)}`),
  rotateSecret: (organizationId: string, id: string) =>
    call<Endpoint>("POST", `/endpoints/${one(id)}/rotate-secret`, { organizationId }),
  sendTest: (organizationId: string, id: string) =>
    call<{ eventId: string; deliveryId: string }>("POST", `/endpoints/${one(id)}/test`, { organizationId }),
  listEvents: (organizationId: string, filter: EventFilter) => {
    const query = new URLSearchParams({ organizationId });
    for (const [key, value] of Object.entries(filter)) if (value !== undefined && value !== "") query.set(key, String(value));
    return call<EventPage>("GET", `/events?${query.toString()}`);
  },
  event: (organizationId: string, id: string) => call<EventDetail>("GET", `/events/${one(id)}?${org(organizationId)}`),
  replay: (organizationId: string, id: string) =>
    call<{ deliveryIds: string[] }>("POST", `/events/${one(id)}/replay`, { organizationId }),
};
