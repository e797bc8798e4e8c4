"use client";
import dynamic from "next/dynamic";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { resetCache, useCanAdminister, useSession } from "@/lib/session";
import { Announcer } from "./Announcer";
import { useT } from "@/lib/i18n/common";
import { rich } from "@/lib/i18n/rich";
import { LanguagePicker, useLanguageFollowsUser } from "./LanguagePicker";
import { useDismiss } from "./useDismiss";
import { usePageTitle } from "./usePageTitle";

/**
 * The organization switcher, loaded only once someone is signed in: the sign-in page (which
 * shares this shell) carries none of the organization screens' code.
 */
const OrganizationSwitcher = dynamic(() => import("./organization/OrganizationSwitcher").then((m) => m.OrganizationSwitcher), {
  ssr: false,
  loading: () => <span className="org-switcher-placeholder" aria-hidden="true" />,
});

/** The header (brand, organization switcher, navigation, sign-out) and, while impersonating, a banner that stays. */
export function AppShell({ children }: { children: ReactNode }) {
  const { data } = useSession();
  const t = useT();
  useLanguageFollowsUser(data?.user);
  const { allowed: canAdminister } = useCanAdminister(data?.user.id);
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string>();
  // On a phone the links fold behind a Menu button (CSS decides; wider screens show them).
  const [menuOpen, setMenuOpen] = useState(false);
  const nav = useRef<HTMLElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  useDismiss(menuOpen, closeMenu, nav, menuButton);
  const pathname = usePathname();
  usePageTitle(pathname);
  useEffect(() => setMenuOpen(false), [pathname]);

  async function signOut() {
    setSigningOut(true);
    setSignOutError(undefined);
    const { error } = await settle(authClient.signOut());
    setSigningOut(false);
    if (error) {
      // Still signed in: say so rather than show a sign-in form over a live session.
      setSignOutError(t("shell.signOutFailed", { reason: describe(error) }));
      return;
    }
    await resetCache();
    router.push("/sign-in/");
  }

  return (
    <>
      <a className="skip-link" href="#main">
        {t("shell.skipToContent")}
      </a>
      {data?.session.impersonatedBy ? <ImpersonationBanner name={data.user.name || data.user.email} /> : null}
      <header className="topbar">
        <div className="topbar-start">
          <Link href="/" className="brand">
            Gatehouse
          </Link>
          {data ? <OrganizationSwitcher key={data.user.id} session={data} /> : null}
        </div>
        <nav aria-label={t("shell.mainNavigation")} className="nav" ref={nav} data-open={menuOpen || undefined}>
          {data ? (
            <>
              <button
                ref={menuButton}
                type="button"
                className="link-button nav-toggle"
                aria-expanded={menuOpen}
                aria-controls="main-nav-links"
                onClick={() => setMenuOpen((o) => !o)}
              >
                {t("shell.menu")}
              </button>
              <div id="main-nav-links" className="nav-links">
                <Link href="/account/">{t("shell.account")}</Link>
                <Link href="/organization/">{t("shell.organization")}</Link>
                {canAdminister ? <Link href="/admin/">{t("shell.admin")}</Link> : null}
                <button type="button" className="link-button" onClick={() => void signOut()} disabled={signingOut}>
                  {signingOut ? t("shell.signingOut") : t("shell.signOut")}
                </button>
              </div>
            </>
          ) : null}
        </nav>
      </header>
      <main id="main" className="page">
        {signOutError ? (
          <p className="alert alert-error" role="alert">
            {signOutError}
          </p>
        ) : null}
        {children}
      </main>
      <footer className="footer">
        <LanguagePicker user={data?.user} />
      </footer>
      <Announcer />
    </>
  );
}

function ImpersonationBanner({ name }: { name: string }) {
  const t = useT();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function stop() {
    setBusy(true);
    const { error } = await settle(authClient.admin.stopImpersonating());
    setBusy(false);
    if (error) {
      setError(describe(error));
      return;
    }
    await resetCache();
    router.push("/admin/");
  }

  return (
    <div className="banner" role="region" aria-label={t("shell.impersonation")}>
      <p>{rich(t("shell.impersonating", { name }), { strong: (text) => <strong>{text}</strong> })}</p>
      <button type="button" className="button button-secondary" onClick={() => void stop()} disabled={busy}>
        {busy ? t("shell.stopping") : t("shell.stopImpersonating")}
      </button>
      {error ? <p role="alert">{error}</p> : null}
    </div>
  );
}
