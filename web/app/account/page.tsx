import type { Metadata } from "next";
import { AccountScreen } from "@/components/account/AccountScreen";

export const metadata: Metadata = { title: "Account · Gatehouse" };

export default function Account() {
  return <AccountScreen />;
}
