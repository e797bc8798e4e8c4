"use client";
import Link from "next/link";
import { useCanAdminister } from "@/lib/session";
import { useMailbox } from "../mailbox/hooks";
import { RequireSession } from "../RequireSession";

/** `/`, the signed-in home: who you are and where to go next. */
export function HomeScreen() {
  return (
    <RequireSession>
      {({ user }) => <Welcome name={user.name} email={user.email} userId={user.id} />}
    </RequireSession>
  );
}

function Welcome({ name, email, userId }: { name: string; email: string; userId: string }) {
  const { allowed: canAdminister } = useCanAdminister(userId);
  // Only a standalone stack, reached from its own machine, has a dev mailbox.
  const { data: mails } = useMailbox({ live: false });
  return (
    <section className="card" aria-labelledby="home-title">
      <h1 id="home-title">Welcome, {name || email}</h1>
      <p className="muted">Signed in as {email}.</p>
      <ul className="tiles">
        <li>
          <Link href="/account/">Account</Link>
          <span>Your profile, password and active sessions.</span>
        </li>
        <li>
          <Link href="/organization/">Organizations</Link>
          <span>Members, invitations and teams of the organizations you belong to.</span>
          <Link href="/organization/create/" className="tile-secondary">
            Create an organization
          </Link>
        </li>
        {canAdminister ? (
          <li>
            <Link href="/admin/">Admin</Link>
            <span>Users, roles, bans and impersonation.</span>
          </li>
        ) : null}
        {mails ? (
          <li>
            <Link href="/dev/mailbox/">Mailbox</Link>
            <span>The mails this standalone stack sent (development only).</span>
          </li>
        ) : null}
      </ul>
    </section>
  );
}
