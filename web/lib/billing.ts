/**
 * The billing API (`/api/billing`): an organization's webhook endpoints, the events sent to
 * them and replays. Not better-auth's protocol, so not its client: the same `{ data, error }`
 * answers, from `fetch` with the session cookie, so forms and SWR treat both alike.
 *
 * Every path, query, body and answer is typed from `api/billing.ts`, generated from the
 * document the gateway serves (`npm run api-types`): a route or field the API renames fails
 * the typecheck here. What the app knows beyond the document (the payments platform's own
 * JSON, the values of a few string fields) narrows the documented types and cannot contradict
 * them.
 */
import type { components, operations, paths } from "./api/billing";
import type { ApiError } from "./errors";

type Schemas = components["schemas"];

/**
 * `T` with some fields given narrower types. Each key must be one of `T`'s and each new type
 * a subtype of the documented one, so a narrowing cannot drift from the API.
 */
type Narrow<T, R extends { [K in keyof R]: K extends keyof T ? T[K] : never }> = Omit<T, keyof R> & R;

/** The delivery statuses, as the event log's `status` filter documents them. */
export type DeliveryStatus = NonNullable<NonNullable<operations["list_events"]["parameters"]["query"]>["status"]>;

export type Endpoint = Schemas["Endpoint"];
export type EndpointSecret = Schemas["EndpointSecret"];
export type Attempt = Narrow<Schemas["Attempt"], { trigger: "scheduled" | "manual" }>;
export type Delivery = Narrow<Schemas["Delivery"], { status: DeliveryStatus; attemptLog?: Attempt[] | null }>;
type EventNarrowing = { origin: "polar" | "test"; deliveries: Delivery[] };
export type BillingEvent = Narrow<Schemas["BillingEvent"], EventNarrowing>;
export type EventPage = Narrow<Schemas["EventPage"], { events: BillingEvent[] }>;
export type EventDetail = Narrow<Schemas["EventDetail"], EventNarrowing>;

/** The payments platform's own JSON for each entity (snake_case), read for what the page shows. */
export type CustomerBilling = Narrow<Schemas["CustomerBilling"], { state?: CustomerStateJson | null; subscriptions: SubscriptionJson[] }>;

/** What was bought for an organization (`metadata.referenceId`), with the grants and refunds of it. */
export type OrganizationBilling = Narrow<
  Schemas["OrganizationBilling"],
  { subscriptions: SubscriptionJson[]; orders: OrderJson[]; benefitGrants: BenefitGrantJson[] }
>;

// Type aliases, not interfaces: they must be assignable to the document's `Record<string, unknown>`.
export type OrderJson = {
  id: string;
  status: string;
  total_amount?: number | null;
  currency?: string | null;
  created_at?: string | null;
  invoice_number?: string | null;
  product?: { name?: string } | null;
};

export type BenefitGrantJson = {
  id: string;
  is_granted?: boolean;
  is_revoked?: boolean;
  granted_at?: string | null;
  benefit?: { type?: string; description?: string } | null;
};

export type SubscriptionJson = {
  id: string;
  status: string;
  amount?: number | null;
  currency?: string | null;
  recurring_interval?: string | null;
  current_period_end?: string | null;
  cancel_at_period_end?: boolean;
  product?: { name?: string } | null;
  /** Its metered prices' meters, each with its name (the customer's state carries only ids). */
  meters?: { meter_id: string; meter?: MeterJson | null }[] | null;
  prices?: { meter_id?: string | null; meter?: MeterJson | null }[] | null;
};

export type MeterJson = { id: string; name?: string | null };

export type CustomerStateJson = {
  active_subscriptions?: SubscriptionJson[];
  granted_benefits?: { id: string; benefit_type: string; granted_at?: string; properties?: Record<string, unknown> }[];
  active_meters?: { id: string; meter_id: string; consumed_units: number; credited_units: number; balance: number }[];
};

/** What the endpoint form sends (the organization is added by each call). */
export type EndpointInput = Omit<Schemas["UpdateEndpointBody"], "organizationId">;
export type EventFilter = Omit<Query<"/events", "get">, "organizationId">;

type Method = "get" | "post" | "patch" | "delete";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Query<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParams<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { path: infer A } } ? A : never;
type Body<P extends keyof paths, M extends Method> = Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Answer<P extends keyof paths, M extends Method> = Operation<P, M> extends { responses: { 200: { content: { "application/json": infer T } } } } ? T : never;

type Answered<T> = Promise<{ data: T | null; error: ApiError | null }>;

interface Request<P extends keyof paths, M extends Method> {
  path?: PathParams<P, M>;
  query?: Query<P, M>;
  body?: Body<P, M>;
}

/** One documented operation: `path` as the document writes it, its `{parameters}` filled in. */
async function call<P extends keyof paths, M extends Method>(method: M, path: P, request: Request<P, M> = {}): Answered<Answer<P, M>> {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String((request.path as Record<string, unknown>)[name])));
  const query = Object.entries(request.query ?? {})
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  const search = query.length > 0 ? `?${query.join("&")}` : "";
  const body = request.body;
  const response = await fetch(`/api/billing${filled}${search}`, {
    method: method.toUpperCase(),
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = (json ?? {}) as Partial<Schemas["ErrorBody"]>;
    return { data: null, error: { status: response.status, statusText: response.statusText, code: error.code, message: error.message } };
  }
  return { data: json as Answer<P, M>, error: null };
}

const inOrganization = (organizationId: string) => ({ organizationId });

// Casts only where the app narrows the documented answer (see `Narrow`): each narrowed type is
// assignable to the documented one, so the cast cannot hide a change of the API.
export const billing = {
  customer: () => call("get", "/customer") as Answered<CustomerBilling>,
  organization: (organizationId: string) =>
    call("get", "/customer/organization", { query: inOrganization(organizationId) }) as Answered<OrganizationBilling>,
  listEndpoints: (organizationId: string) => call("get", "/endpoints", { query: inOrganization(organizationId) }),
  createEndpoint: (organizationId: string, input: EndpointInput & { url: string }) =>
    call("post", "/endpoints", { body: { ...input, organizationId } }),
  updateEndpoint: (organizationId: string, endpointId: string, input: EndpointInput) =>
    call("patch", "/endpoints/{endpointId}", { path: { endpointId }, body: { ...input, organizationId } }),
  deleteEndpoint: (organizationId: string, endpointId: string) =>
    call("delete", "/endpoints/{endpointId}", { path: { endpointId }, query: inOrganization(organizationId) }),
  secret: (organizationId: string, endpointId: string) =>
    call("get", "/endpoints/{endpointId}/secret", { path: { endpointId }, query: inOrganization(organizationId) }),
  rotateSecret: (organizationId: string, endpointId: string) =>
    call("post", "/endpoints/{endpointId}/rotate-secret", { path: { endpointId }, body: inOrganization(organizationId) }),
  sendTest: (organizationId: string, endpointId: string) =>
    call("post", "/endpoints/{endpointId}/test", { path: { endpointId }, body: inOrganization(organizationId) }),
  listEvents: (organizationId: string, filter: EventFilter) =>
    call("get", "/events", { query: { organizationId, ...filter } }) as Answered<EventPage>,
  event: (organizationId: string, eventId: string) =>
    call("get", "/events/{eventId}", { path: { eventId }, query: inOrganization(organizationId) }) as Answered<EventDetail>,
  replay: (organizationId: string, eventId: string) =>
    call("post", "/events/{eventId}/replay", { path: { eventId }, body: inOrganization(organizationId) }),
};
