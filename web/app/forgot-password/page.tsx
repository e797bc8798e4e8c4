import type { Metadata } from "next";
import { ForgotPasswordForm } from "@/components/auth/ForgotPasswordForm";

export const metadata: Metadata = { title: "Forgot your password · Gatehouse" };

export default function ForgotPassword() {
  return <ForgotPasswordForm />;
}
