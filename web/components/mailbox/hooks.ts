"use client";
import useSWR from "swr";
import { t } from "@/lib/i18n/mailbox";

/** One mail of the mailer's log as `GET /api/dev/mailbox` shows it. */
export interface DevMail {
  id: string;
  to: string;
  kind: string;
  language: number;
  subject: string;
  text: string;
  html: string;
  status: "queued" | "sent" | "failed" | "unknown";
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export class MailboxUnavailable extends Error {}

/**
 * The dev mailbox is not part of better-auth's protocol, so the official client has no call
 * for it: SWR reads it with fetch. 404 means it is off (not standalone, or not from loopback).
 */
async function fetchMailbox(url: string): Promise<DevMail[]> {
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (response.status === 404) throw new MailboxUnavailable();
  if (!response.ok) throw new Error(t("answered", { status: response.status }));
  const body = (await response.json()) as { mails: DevMail[] };
  return body.mails;
}

/**
 * The newest mails, refreshed every 2 s so a mail shows up soon after it is requested
 * (`live: false` reads once: enough to know whether there is a mailbox at all).
 */
export function useMailbox({ live = true }: { live?: boolean } = {}) {
  return useSWR<DevMail[], Error>("/api/dev/mailbox?limit=50", fetchMailbox, {
    refreshInterval: live ? 2000 : 0,
    revalidateOnFocus: live,
    shouldRetryOnError: false,
  });
}
