import type { Metadata } from "next";
import { AccountDeleted } from "@/components/AccountDeleted";

export const metadata: Metadata = { title: "Account deleted · Gatehouse" };

export default function AccountDeletedPage() {
  return <AccountDeleted />;
}
