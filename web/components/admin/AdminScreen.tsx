"use client";
import Link from "next/link";
import { useCanAdminister } from "@/lib/session";
import { LoadError } from "../LoadError";
import { RequireSession } from "../RequireSession";
import { UsersAdmin } from "./UsersAdmin";

/** `/admin/`: the users table, for those the server lets list users. */
export function AdminScreen() {
  return <RequireSession>{({ user }) => <AdminArea userId={user.id} />}</RequireSession>;
}

function AdminArea({ userId }: { userId: string }) {
  const { allowed, error, retry } = useCanAdminister(userId);
  if (error) {
    return (
      <section className="card" aria-labelledby="admin-error">
        <h1 id="admin-error">Admin</h1>
        <LoadError what="your permissions" error={error} retry={retry} />
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
