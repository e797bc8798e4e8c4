import type { Metadata } from "next";
import { OrganizationScreen } from "@/components/organization/screens";

export const metadata: Metadata = { title: "Organization · Gatehouse" };

export default function Organization() {
  return <OrganizationScreen />;
}
