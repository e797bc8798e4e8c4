"use client";
import dynamic from "next/dynamic";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/common";
import { rich } from "@/lib/i18n/rich";
import { resetCache, useSession } from "@/lib/session";
import { Announcer } from "./Announcer";
import { LanguagePicker, useLanguageFollowsUser } from "./LanguagePicker";
import { useBrand } from "./shell/hooks";
import { usePageTitle } from "./usePageTitle";

// What only a signed-in user sees loads once someone is: the sign-in page (which shares this
// shell) carries none of it.
const OrganizationSwitcher = dynamic(() => import("./organization/OrganizationSwitcher").then((m) => m.OrganizationSwitcher), {
  ssr: false,
  loading: () => <span className="org-switcher-placeholder" aria-hidden="true" />,
});
const UserMenu = dynamic(() => import("./shell/UserMenu").then((m) => m.UserMenu), {
  ssr: false,
  loading: () => <span className="user-menu-placeholder" aria-hidden="true" />,
});
const VerifyEmailBanner = dynamic(() => import("./shell/VerifyEmailBanner").then((m) => m.VerifyEmailBanner), { ssr: false });

/**
 * The header (brand, organization switcher, the user's menu), the footer (the language), and
 * the banners that stay: an unverified address, an impersonation.
 */
export function AppShell({ children }: { children: ReactNode }) {
  const { data } = useSession();
  const t = useT();
  useLanguageFollowsUser(data?.user);
  const brand = useBrand();
  usePageTitle(usePathname(), brand.name);
  const impersonating = Boolean(data?.session.impersonatedBy);

  return (
    <>
      <a className="skip-link" href="#main">
        {t("shell.skipToContent")}
      </a>
      {data && impersonating ? <ImpersonationBanner name={data.user.name || data.user.email} /> : null}
      <header className="topbar">
        <div className="topbar-start">
          <Link href="/" className="brand">
            {/* Decorative: the name beside it says what it is. */}
            {brand.logoUrl ? <img className="brand-logo" src={brand.logoUrl} alt="" /> : null}
            {brand.name}
          </Link>
          {data ? <OrganizationSwitcher key={data.user.id} session={data} /> : null}
        </div>
        <nav aria-label={t("shell.mainNavigation")} className="nav">
          {data ? <UserMenu key={data.user.id} session={data} /> : null}
        </nav>
      </header>
      <main id="main" className="page">
        {children}
      </main>
      <footer className="footer">
        <LanguagePicker user={data?.user} />
      </footer>
      {/* Last in the page and stuck to the bottom of the window: arriving with the session, it
          moves nothing that is already on screen. */}
      {data && !impersonating && !data.user.emailVerified ? <VerifyEmailBanner key={data.user.email} email={data.user.email} /> : null}
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
