import type { Metadata } from "next";
import { Mailbox } from "@/components/mailbox/Mailbox";

export const metadata: Metadata = { title: "Mailbox · Gatehouse" };

export default function DevMailbox() {
  return <Mailbox />;
}
