"use client";
import { useRouter } from "next/navigation";
import { BillingPage } from "../billing/BillingPage";
import { RequireSession } from "../RequireSession";
import { CreateOrganizationForm } from "./CreateOrganizationForm";
import { refreshSessionAndOrganizations } from "./hooks";
import { OrganizationPage } from "./OrganizationPage";

/** `/organization/`: the active organization, or a choice of one. */
export function OrganizationScreen() {
  return <RequireSession>{(session) => <OrganizationPage session={session} />}</RequireSession>;
}

/** `/organization/create/`: creating one makes it active, then its page opens. */
export function CreateOrganizationScreen() {
  const router = useRouter();
  return (
    <RequireSession>
      {({ user }) => (
        <CreateOrganizationForm
          userId={user.id}
          onCreated={async () => {
            await refreshSessionAndOrganizations();
            router.push("/organization/");
          }}
        />
      )}
    </RequireSession>
  );
}

/** `/organization/billing/`: the active organization's billing webhooks (owners and admins). */
export function BillingScreen() {
  return <RequireSession>{(session) => <BillingPage session={session} />}</RequireSession>;
}
