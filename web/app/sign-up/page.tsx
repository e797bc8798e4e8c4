import type { Metadata } from "next";
import { AuthPage } from "@/components/auth/AuthPage";

export const metadata: Metadata = { title: "Create account · Gatehouse" };

export default function SignUp() {
  return <AuthPage mode="sign-up" />;
}
