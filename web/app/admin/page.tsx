import type { Metadata } from "next";
import { AdminScreen } from "@/components/admin/AdminScreen";

export const metadata: Metadata = { title: "Admin · Gatehouse" };

export default function Admin() {
  return <AdminScreen />;
}
