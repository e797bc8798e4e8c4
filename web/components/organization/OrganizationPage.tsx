"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/organization";
import { rich } from "@/lib/i18n/rich";
import { ApiKeysSection } from "../api-key/ApiKeysSection";
import { Button } from "../Button";
import { ConfirmDialog } from "../ConfirmDialog";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { SectionNav, useSection } from "../SectionNav";
import { refreshSessionAndOrganizations, useFullOrganization, useMemberRole, useOrganizations } from "./hooks";
import { InvitationsSection } from "./InvitationsSection";
import { OrganizationLogo } from "./OrganizationLogo";
import { InviteForm } from "./InviteForm";
import { MembersSection } from "./MembersSection";
import { abilitiesOf, isOwnerRole, roleLabel } from "./roles";
import { SettingsSection } from "./SettingsSection";
import { TeamsSection } from "./TeamsSection";
import type { FullOrganization } from "./types";

/** The active organization's page, or a choice of organization when none is active. */
export function OrganizationPage({ session }: { session: SessionData }) {
  const organizationId = session.session.activeOrganizationId;
  if (!organizationId) return <ChooseOrganization userId={session.user.id} />;
  return <OrganizationView key={organizationId} session={session} organizationId={organizationId} />;
}

function Loading({ label }: { label: string }) {
  return (
    <div className="card skeleton" aria-busy="true">
      <span className="visually-hidden">{label}</span>
    </div>
  );
}

/** No active organization: the user's organizations to open, and creating one. */
export function ChooseOrganization({ userId }: { userId: string }) {
  const t = useT();
  const { data, error, isLoading, mutate } = useOrganizations(userId);
  const [opening, setOpening] = useState<string>();
  const [message, setMessage] = useState<string>();

  async function open(organizationId: string) {
    setOpening(organizationId);
    setMessage(undefined);
    const { error } = await settle(authClient.organization.setActive({ organizationId }));
    if (error) {
      setOpening(undefined);
      setMessage(describe(error));
      return;
    }
    // The page follows the session's new active organization.
    await refreshSessionAndOrganizations();
  }

  return (
    <section className="card" aria-labelledby="choose-org-title" aria-busy={isLoading || undefined}>
      <div className="toolbar">
        <h1 id="choose-org-title">{t("choose.title")}</h1>
        <Link className="button button-primary" href="/organization/create/">
          {t("choose.create")}
        </Link>
      </div>
      <FormAlert message={message} />
      {error ? (
        <LoadError message={t("choose.loadFailed")} error={error} retry={mutate} />
      ) : isLoading ? (
        <ul className="list" aria-label={t("choose.loadingAria")}>
          <li className="skeleton-row" />
          <li className="skeleton-row" />
        </ul>
      ) : data && data.length > 0 ? (
        <>
          <p className="muted">{t("choose.intro")}</p>
          <ul className="list">
            {data.map((org) => (
              <li key={org.id} className="list-row" data-testid="organization-row">
                <div className="org-identity">
                  <OrganizationLogo name={org.name} logo={org.logo} />
                  <div>
                    <strong>{org.name}</strong>
                    <p className="muted">{org.slug}</p>
                  </div>
                </div>
                <Button tone="secondary" busy={opening === org.id} busyLabel={t("choose.opening")} onClick={() => void open(org.id)} aria-label={t("choose.openAria", { name: org.name })}>
                  {t("choose.open")}
                </Button>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="empty">{t("choose.empty")}</p>
      )}
    </section>
  );
}

const SECTIONS = ["members", "teams", "api-keys", "settings"] as const;

/**
 * The organization in sections, each at its own address (`/organization/#teams`): members
 * (with inviting and pending invitations), teams, API keys and settings; billing is a page.
 */
function OrganizationView({ session, organizationId }: { session: SessionData; organizationId: string }) {
  const t = useT();
  const current = useSection(SECTIONS);
  const userId = session.user.id;
  const full = useFullOrganization(userId, organizationId);
  const role = useMemberRole(userId, organizationId);
  const error = full.error ?? role.error;

  if (error) return <OrganizationError error={error} retry={() => void Promise.all([full.mutate(), role.mutate()])} />;
  if (!full.data || role.data === undefined) return <Loading label={t("page.loading")} />;
  const org = full.data;
  const abilities = abilitiesOf(role.data);

  // Who manages it sees inviting, API keys, settings and billing; everyone the members and teams.
  const sections = [
    { key: "members" as const, label: t("members.title") },
    { key: "teams" as const, label: t("teams.title") },
    ...(abilities.manage
      ? [
          { key: "api-keys" as const, label: t("page.apiKeys") },
          { key: "settings" as const, label: t("settings.title") },
          { key: "billing" as const, label: t("page.billingTitle"), href: "/organization/billing/" },
        ]
      : []),
  ];
  const shown = sections.some((s) => s.key === current) ? current : "members";

  return (
    <div className="sectioned">
      <OrganizationHeader org={org} role={role.data} />
      <SectionNav label={t("page.sections")} sections={sections} current={shown} />
      <div className="stack">
        {shown === "members" ? (
          <>
            <MembersSection org={org} userId={userId} abilities={abilities} />
            {abilities.manage ? (
              <>
                <InviteForm org={org} abilities={abilities} />
                <InvitationsSection org={org} />
              </>
            ) : null}
          </>
        ) : null}
        {shown === "teams" ? <TeamsSection org={org} session={session} abilities={abilities} /> : null}
        {/* The server decides who may (the `apiKey` permission; owners always): others see why. */}
        {shown === "api-keys" ? <ApiKeysSection owner={{ userId, organizationId: org.id }} title={t("page.apiKeysTitle")} /> : null}
        {shown === "settings" ? <SettingsSection org={org} userId={userId} abilities={abilities} /> : null}
      </div>
    </div>
  );
}

/** The organization could not be read: gone, no longer ours, or the server failed. */
function OrganizationError({ error, retry }: { error: ApiError; retry: () => void }) {
  const t = useT();
  const [leaving, setLeaving] = useState(false);
  const gone = ["USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION", "ORGANIZATION_NOT_FOUND", "MEMBER_NOT_FOUND"].includes(
    error.code ?? "",
  );
  async function chooseAnother() {
    setLeaving(true);
    await settle(authClient.organization.setActive({ organizationId: null }));
    setLeaving(false);
    await refreshSessionAndOrganizations();
  }
  return (
    <section className="card" aria-labelledby="org-error-title">
      <h1 id="org-error-title">{t("orgError.title")}</h1>
      {gone ? (
        <>
          <p role="alert">{t("orgError.gone")}</p>
          <Button busy={leaving} busyLabel={t("orgError.switching")} onClick={() => void chooseAnother()}>
            {t("orgError.chooseAnother")}
          </Button>
        </>
      ) : (
        <LoadError message={t("orgError.loadFailed")} error={error} retry={retry} />
      )}
    </section>
  );
}

function OrganizationHeader({ org, role }: { org: FullOrganization; role: string | null }) {
  const t = useT();
  const router = useRouter();
  const [leaving, setLeaving] = useState(false);
  // The server keeps an organization from losing its last owner: say so before, not after.
  const soleOwner = isOwnerRole(role) && org.members.filter((m) => isOwnerRole(m.role)).length <= 1;
  return (
    <section className="card org-header" aria-labelledby="org-title">
      <div className="org-identity">
        <OrganizationLogo name={org.name} logo={org.logo} />
        <div>
          <h1 id="org-title">{org.name}</h1>
          <p className="muted">
            {rich(t("header.slugAndRole", { slug: org.slug, role: roleLabel(role) }), {
              role: (text) => <strong data-testid="my-role">{text}</strong>,
            })}
          </p>
        </div>
      </div>
      <Button tone="secondary" busy={false} onClick={() => setLeaving(true)}>
        {t("header.leave")}
      </Button>
      <ConfirmDialog
        open={leaving}
        title={t("header.leaveTitle", { organization: org.name })}
        confirmLabel={t("header.leaveConfirm")}
        busyLabel={t("header.leaving")}
        ready={!soleOwner}
        onClose={() => setLeaving(false)}
        onConfirm={async () => {
          const { error } = await settle(authClient.organization.leave({ organizationId: org.id }));
          if (error) return error;
          await refreshSessionAndOrganizations();
          router.push("/organization/");
          return null;
        }}
      >
        {soleOwner ? (
          <p className="alert alert-info" role="note">
            {t("header.soleOwner")}
          </p>
        ) : (
          <p>{t("header.leaveText")}</p>
        )}
      </ConfirmDialog>
    </section>
  );
}
