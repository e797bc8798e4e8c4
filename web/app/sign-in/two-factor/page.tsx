import type { Metadata } from "next";
import { TwoFactorForm } from "@/components/auth/TwoFactorForm";

export const metadata: Metadata = { title: "Two-step verification · Gatehouse" };

export default function TwoFactor() {
  return <TwoFactorForm />;
}
