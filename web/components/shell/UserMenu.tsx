"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/common";
import { resetCache, useCanAdminister } from "@/lib/session";
import { useDismiss } from "../useDismiss";
import { Avatar } from "./Avatar";

/**
 * Who is signed in, on every page: their avatar opens a menu (a disclosure: a button and a
 * list of links) with the account, the organizations, the admin area for those who may, and
 * sign-out. The same on a phone and a desktop.
 */
export function UserMenu({ session }: { session: SessionData }) {
  const t = useT();
  const { user } = session;
  const { allowed: canAdminister } = useCanAdminister(user.id);
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const [error, setError] = useState<string>();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, root, button);
  const pathname = usePathname();
  useEffect(() => setOpen(false), [pathname]);
  const name = user.name || user.email;

  async function signOut() {
    setSigningOut(true);
    setError(undefined);
    const { error } = await settle(authClient.signOut());
    setSigningOut(false);
    if (error) {
      // Still signed in: say so rather than show a sign-in form over a live session.
      setError(t("shell.signOutFailed", { reason: describe(error) }));
      return;
    }
    await resetCache();
    router.push("/sign-in/");
  }

  return (
    <div className="user-menu" ref={root} data-open={open || undefined}>
      <button
        ref={button}
        type="button"
        className="user-button"
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={t("shell.userMenu", { name })}
        onClick={() => setOpen((o) => !o)}
      >
        <Avatar name={user.name} email={user.email} image={user.image} />
        <span className="user-button-name" aria-hidden="true">
          {name}
        </span>
      </button>
      <div id={menuId} className="user-menu-panel" hidden={!open}>
        <p className="user-menu-who">
          <span className="visually-hidden">{t("shell.signedInAs")} </span>
          <strong>{user.name || user.email}</strong>
          {user.name ? <span className="muted">{user.email}</span> : null}
        </p>
        <ul>
          <li>
            <Link href="/account/">{t("shell.account")}</Link>
          </li>
          <li>
            <Link href="/organization/">{t("shell.organizations")}</Link>
          </li>
          {canAdminister ? (
            <li>
              <Link href="/admin/">{t("shell.admin")}</Link>
            </li>
          ) : null}
          <li>
            <button type="button" className="link-button" onClick={() => void signOut()} aria-disabled={signingOut || undefined}>
              {signingOut ? t("shell.signingOut") : t("shell.signOut")}
            </button>
          </li>
        </ul>
      </div>
      {error ? (
        <p className="alert alert-error user-menu-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
