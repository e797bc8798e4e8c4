import type { Metadata } from "next";
import { VerifyEmailLanding } from "@/components/auth/VerifyEmailLanding";

export const metadata: Metadata = { title: "Email verification · Gatehouse" };

export default function VerifyEmail() {
  return <VerifyEmailLanding />;
}
