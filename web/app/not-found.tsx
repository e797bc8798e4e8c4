import type { Metadata } from "next";
import { NotFound } from "@/components/NotFound";

export const metadata: Metadata = { title: "Page not found · Gatehouse" };

export default function NotFoundPage() {
  return <NotFound />;
}
