"use client";
import { BillingSection } from "@/components/account/BillingSection";
import { ChangePasswordForm } from "@/components/account/ChangePasswordForm";
import { DeleteAccount } from "@/components/account/DeleteAccount";
import { EmailSection } from "@/components/account/EmailSection";
import { ProfileForm } from "@/components/account/ProfileForm";
import { SessionsList } from "@/components/account/SessionsList";
import { RequireSession } from "@/components/RequireSession";

export default function Account() {
  return (
    <RequireSession>
      {(session) => (
        <div className="stack">
          <h1>Account</h1>
          <ProfileForm key={session.user.id} session={session} />
          {/* An admin acting as the user changes neither their address, password nor existence. */}
          {session.session.impersonatedBy ? null : <EmailSection key={`email-${session.user.id}`} session={session} />}
          {session.session.impersonatedBy ? null : <ChangePasswordForm userId={session.user.id} />}
          <SessionsList current={session} />
          <BillingSection userId={session.user.id} />
          {session.session.impersonatedBy ? null : <DeleteAccount email={session.user.email} />}
        </div>
      )}
    </RequireSession>
  );
}
