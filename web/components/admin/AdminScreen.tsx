"use client";
import Link from "next/link";
import { useT } from "@/lib/i18n/admin";
import { useCanAdminister } from "@/lib/session";
import { LoadError } from "../LoadError";
import { RequireSession } from "../RequireSession";
import { UsersAdmin } from "./UsersAdmin";

/** `/admin/`: the users table, for those the server lets list users. */
export function AdminScreen() {
  return <RequireSession>{({ user }) => <AdminArea userId={user.id} />}</RequireSession>;
}

function AdminArea({ userId }: { userId: string }) {
  const t = useT();
  const { allowed, error, retry } = useCanAdminister(userId);
  if (error) {
    return (
      <section className="card" aria-labelledby="admin-error">
        <h1 id="admin-error">{t("title")}</h1>
        <LoadError message={t("permissionsLoadFailed")} error={error} retry={retry} />
      </section>
    );
  }
  if (allowed === undefined) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">{t("loading")}</span>
      </div>
    );
  }
  if (!allowed) {
    return (
      <section className="card" aria-labelledby="admin-denied">
        <h1 id="admin-denied">{t("title")}</h1>
        <p>{t("denied.body")}</p>
        <Link href="/">{t("denied.home")}</Link>
      </section>
    );
  }
  return <UsersAdmin userId={userId} />;
}
