"use client";
import Link from "next/link";
import type { SessionData } from "@/lib/auth-client";
import { useMemberRole } from "../organization/hooks";
import { useT } from "@/lib/i18n/billing";
import { rich } from "@/lib/i18n/rich";
import { abilitiesOf } from "../organization/roles";
import { EndpointForm } from "./EndpointForm";
import { EndpointsSection } from "./EndpointsSection";
import { EventLog } from "./EventLog";
import { OrganizationPurchases } from "./OrganizationPurchases";

/** `/organization/billing/`: what was bought for the active organization, its webhook endpoints and event log. */
export function BillingPage({ session }: { session: SessionData }) {
  const t = useT();
  const organizationId = session.session.activeOrganizationId;
  const userId = session.user.id;
  const role = useMemberRole(userId, organizationId ?? "");
  if (!organizationId) {
    return (
      <section className="card">
        <h1>{t("page.title")}</h1>
        <p>{rich(t("page.chooseOrganization"), { link: (text) => <Link href="/organization/">{text}</Link> })}</p>
      </section>
    );
  }
  if (role.data === undefined && !role.error) return <div className="card skeleton" aria-busy="true" />;
  // The server checks again; a member is not offered what it would refuse.
  if (!abilitiesOf(role.data ?? null).manage) {
    return (
      <section className="card">
        <h1>{t("page.title")}</h1>
        <p>{t("page.managersOnly")}</p>
      </section>
    );
  }
  return (
    <div className="stack">
      <section className="card">
        <h1>{t("page.title")}</h1>
        <p className="muted">
          {t("page.intro")} <Link href="/organization/">{t("page.back")}</Link>
        </p>
      </section>
      <OrganizationPurchases userId={userId} organizationId={organizationId} />
      <EndpointsSection userId={userId} organizationId={organizationId} />
      <EndpointForm organizationId={organizationId} />
      <EventLog userId={userId} organizationId={organizationId} />
    </div>
  );
}
