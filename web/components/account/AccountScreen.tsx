"use client";
import { useT } from "@/lib/i18n/account";
import { RequireSession } from "../RequireSession";
import { SectionNav, useSection } from "../SectionNav";
import { ApiKeysSection } from "../api-key/ApiKeysSection";
import { BillingSection } from "./BillingSection";
import { ChangePasswordForm } from "./ChangePasswordForm";
import { DeleteAccount } from "./DeleteAccount";
import { EmailSection } from "./EmailSection";
import { LinkedAccounts } from "./LinkedAccounts";
import { ProfileForm } from "./ProfileForm";
import { SessionsList } from "./SessionsList";
import { TwoFactorSection } from "./TwoFactorSection";

const SECTIONS = ["profile", "security", "sessions", "api-keys", "billing"] as const;

/**
 * `/account/`: the signed-in user's account in sections, each at its own address
 * (`/account/#security`): profile and address, security (password, two-step verification,
 * sign-in methods), sessions, API keys, billing.
 */
export function AccountScreen() {
  const t = useT();
  const current = useSection(SECTIONS);
  return (
    <RequireSession>
      {(session) => {
        // An admin acting as the user changes neither their address, password, keys nor existence.
        const own = !session.session.impersonatedBy;
        const sections = [
          { key: "profile" as const, label: t("screen.profile") },
          { key: "security" as const, label: t("screen.security") },
          { key: "sessions" as const, label: t("screen.sessions") },
          ...(own ? [{ key: "api-keys" as const, label: t("screen.apiKeys") }] : []),
          { key: "billing" as const, label: t("screen.billing") },
        ];
        const shown = sections.some((s) => s.key === current) ? current : "profile";
        return (
          <div className="sectioned">
            <h1>{t("screen.title")}</h1>
            <SectionNav label={t("screen.sections")} sections={sections} current={shown} />
            <div className="stack">
              {shown === "profile" ? (
                <>
                  <ProfileForm key={session.user.id} session={session} />
                  {own ? <EmailSection key={`email-${session.user.id}`} session={session} /> : null}
                  {own ? <DeleteAccount email={session.user.email} /> : null}
                </>
              ) : null}
              {shown === "security" ? (
                <>
                  {own ? <ChangePasswordForm userId={session.user.id} /> : null}
                  {own ? <TwoFactorSection key={`2fa-${session.user.id}`} enabled={Boolean(session.user.twoFactorEnabled)} /> : null}
                  <LinkedAccounts userId={session.user.id} readOnly={!own} />
                </>
              ) : null}
              {shown === "sessions" ? <SessionsList current={session} /> : null}
              {shown === "api-keys" ? <ApiKeysSection owner={{ userId: session.user.id }} /> : null}
              {shown === "billing" ? <BillingSection userId={session.user.id} /> : null}
            </div>
          </div>
        );
      }}
    </RequireSession>
  );
}
