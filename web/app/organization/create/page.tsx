import type { Metadata } from "next";
import { CreateOrganizationScreen } from "@/components/organization/screens";

export const metadata: Metadata = { title: "Create an organization · Gatehouse" };

export default function CreateOrganization() {
  return <CreateOrganizationScreen />;
}
