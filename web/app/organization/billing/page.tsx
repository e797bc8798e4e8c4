import type { Metadata } from "next";
import { BillingScreen } from "@/components/organization/screens";

export const metadata: Metadata = { title: "Billing · Gatehouse" };

export default function Billing() {
  return <BillingScreen />;
}
