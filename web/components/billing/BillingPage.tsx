"use client";
import Link from "next/link";
import type { SessionData } from "@/lib/auth-client";
import { useMemberRole } from "../organization/hooks";
import { abilitiesOf } from "../organization/roles";
import { EndpointForm } from "./EndpointForm";
import { EndpointsSection } from "./EndpointsSection";
import { EventLog } from "./EventLog";
import { OrganizationPurchases } from "./OrganizationPurchases";

/** `/organization/billing/`: what was bought for the active organization, its webhook endpoints and event log. */
export function BillingPage({ session }: { session: SessionData }) {
  const organizationId = session.session.activeOrganizationId;
  const userId = session.user.id;
  const role = useMemberRole(userId, organizationId ?? "");
  if (!organizationId) {
    return (
      <section className="card">
        <h1>Billing</h1>
        <p>
          Choose an organization first: <Link href="/organization/">your organizations</Link>.
        </p>
      </section>
    );
  }
  if (role.data === undefined && !role.error) return <div className="card skeleton" aria-busy="true" />;
  // The server checks again; a member is not offered what it would refuse.
  if (!abilitiesOf(role.data ?? null).manage) {
    return (
      <section className="card">
        <h1>Billing</h1>
        <p>Only the organization&apos;s owners and admins see its billing and manage its webhooks.</p>
      </section>
    );
  }
  return (
    <div className="stack">
      <section className="card">
        <h1>Billing</h1>
        <p className="muted">
          What was bought for this organization, and your customers&apos; billing events (orders, subscriptions,
          refunds, benefits) as the payments platform sends them, forwarded to your endpoints.{" "}
          <Link href="/organization/">Back to the organization</Link>
        </p>
      </section>
      <OrganizationPurchases userId={userId} organizationId={organizationId} />
      <EndpointsSection userId={userId} organizationId={organizationId} />
      <EndpointForm organizationId={organizationId} />
      <EventLog userId={userId} organizationId={organizationId} />
    </div>
  );
}
