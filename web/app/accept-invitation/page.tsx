import type { Metadata } from "next";
import { AcceptInvitation } from "@/components/organization/AcceptInvitation";

export const metadata: Metadata = { title: "Invitation · Gatehouse" };

/** The mailed invitation link, `/accept-invitation/<id>`: the gateway serves this page for any id. */
export default function AcceptInvitationPage() {
  return <AcceptInvitation />;
}
