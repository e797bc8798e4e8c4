import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Account deleted · Gatehouse" };

export default function AccountDeleted() {
  return (
    <section className="card form" aria-labelledby="deleted-title">
      <h1 id="deleted-title">Your account is deleted</h1>
      <p role="status">Your account, its sign-in methods and its sessions are gone. The email address is free again.</p>
      <Link className="button button-secondary" href="/sign-up/">
        Create a new account
      </Link>
    </section>
  );
}
