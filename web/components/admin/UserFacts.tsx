"use client";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/admin";
import type { AdminUser } from "./hooks";

/** Whether the user proved their email address, and whether they are banned (why, until when). */
export function UserFacts({ user }: { user: AdminUser }) {
  const t = useT();
  const until = user.banExpires ? formatDate(user.banExpires) : undefined;
  const banned = user.banReason
    ? until
      ? t("ban.statusReasonUntil", { reason: user.banReason, date: until })
      : t("ban.statusReason", { reason: user.banReason })
    : until
      ? t("ban.statusUntil", { date: until })
      : t("ban.status");
  return (
    <section aria-labelledby="facts-title">
      <h3 id="facts-title" className="visually-hidden">
        {t("facts.label")}
      </h3>
      <dl className="facts">
        <dt>{t("facts.email")}</dt>
        <dd data-testid="email-status">{user.emailVerified ? t("facts.verified") : t("facts.unverified")}</dd>
        <dt>{t("facts.account")}</dt>
        <dd data-testid="account-status">{user.banned ? banned : t("users.active")}</dd>
      </dl>
    </section>
  );
}
