import type { Metadata } from "next";
import { AuthPage } from "@/components/auth/AuthPage";

export const metadata: Metadata = { title: "Sign in · Gatehouse" };

export default function SignIn() {
  return <AuthPage mode="sign-in" />;
}
