"use client";
import Link from "next/link";
import { useT } from "@/lib/i18n/home";
import { useCanAdminister } from "@/lib/session";
import { useMailbox } from "../mailbox/hooks";
import { RequireSession } from "../RequireSession";
import { PendingInvitations } from "./PendingInvitations";

/** `/`, the signed-in home: who you are, where to go next, and invitations to answer. */
export function HomeScreen() {
  return (
    <RequireSession>
      {({ user }) => <Welcome name={user.name} email={user.email} userId={user.id} />}
    </RequireSession>
  );
}

function Welcome({ name, email, userId }: { name: string; email: string; userId: string }) {
  const t = useT();
  const { allowed: canAdminister } = useCanAdminister(userId);
  // Only a standalone stack, reached from its own machine, has a dev mailbox.
  const { data: mails } = useMailbox({ live: false });
  return (
    <div className="stack">
      <section className="card" aria-labelledby="home-title">
        <h1 id="home-title">{t("welcome", { name: name || email })}</h1>
        <p className="muted">{t("signedInAs", { email })}</p>
        <ul className="tiles">
          <li>
            <Link href="/account/">{t("account.link")}</Link>
            <span>{t("account.body")}</span>
          </li>
          <li>
            <Link href="/organization/">{t("organizations.link")}</Link>
            <span>{t("organizations.body")}</span>
            <Link href="/organization/create/" className="tile-secondary">
              {t("organizations.create")}
            </Link>
          </li>
          {canAdminister ? (
            <li>
              <Link href="/admin/">{t("admin.link")}</Link>
              <span>{t("admin.body")}</span>
            </li>
          ) : null}
          {mails ? (
            <li>
              <Link href="/dev/mailbox/">{t("mailbox.link")}</Link>
              <span>{t("mailbox.body")}</span>
            </li>
          ) : null}
        </ul>
      </section>
      <PendingInvitations userId={userId} />
    </div>
  );
}
