"use client";
import { useT } from "@/lib/i18n/account";
import { RequireSession } from "../RequireSession";
import { ApiKeysSection } from "../api-key/ApiKeysSection";
import { BillingSection } from "./BillingSection";
import { ChangePasswordForm } from "./ChangePasswordForm";
import { DeleteAccount } from "./DeleteAccount";
import { EmailSection } from "./EmailSection";
import { LinkedAccounts } from "./LinkedAccounts";
import { ProfileForm } from "./ProfileForm";
import { SessionsList } from "./SessionsList";
import { TwoFactorSection } from "./TwoFactorSection";

/** `/account/`: the signed-in user's profile, address, password, two-step verification, sign-in methods, sessions, API keys and billing. */
export function AccountScreen() {
  const t = useT();
  return (
    <RequireSession>
      {(session) => (
        <div className="stack">
          <h1>{t("screen.title")}</h1>
          <ProfileForm key={session.user.id} session={session} />
          {/* An admin acting as the user changes neither their address, password nor existence. */}
          {session.session.impersonatedBy ? null : <EmailSection key={`email-${session.user.id}`} session={session} />}
          {session.session.impersonatedBy ? null : <ChangePasswordForm userId={session.user.id} />}
          {session.session.impersonatedBy ? null : (
            <TwoFactorSection key={`2fa-${session.user.id}`} enabled={Boolean(session.user.twoFactorEnabled)} />
          )}
          <LinkedAccounts userId={session.user.id} readOnly={Boolean(session.session.impersonatedBy)} />
          <SessionsList current={session} />
          {session.session.impersonatedBy ? null : <ApiKeysSection owner={{ userId: session.user.id }} />}
          <BillingSection userId={session.user.id} />
          {session.session.impersonatedBy ? null : <DeleteAccount email={session.user.email} />}
        </div>
      )}
    </RequireSession>
  );
}
