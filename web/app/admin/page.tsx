"use client";
import Link from "next/link";
import { UsersAdmin } from "@/components/admin/UsersAdmin";
import { RequireSession } from "@/components/RequireSession";
import { describe } from "@/lib/errors";
import { useCanAdminister } from "@/lib/session";

export default function Admin() {
  return <RequireSession>{({ user }) => <AdminArea userId={user.id} />}</RequireSession>;
}

function AdminArea({ userId }: { userId: string }) {
  const { allowed, error, retry } = useCanAdminister(userId);
  if (error) {
    return (
      <section className="card" aria-labelledby="admin-error" role="alert">
        <h1 id="admin-error">Admin</h1>
        <p>We could not check your access. {describe(error)}</p>
        <button type="button" className="button button-secondary" onClick={() => void retry()}>
          Try again
        </button>
      </section>
    );
  }
  if (allowed === undefined) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">Loading…</span>
      </div>
    );
  }
  if (!allowed) {
    return (
      <section className="card" aria-labelledby="admin-denied">
        <h1 id="admin-denied">Admin</h1>
        <p>This area is for administrators. Ask an administrator if you need access.</p>
        <Link href="/">Go home</Link>
      </section>
    );
  }
  return <UsersAdmin userId={userId} />;
}
