"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/organization";
import { LoadError } from "../LoadError";
import { useDismiss } from "../useDismiss";
import { refreshSessionAndOrganizations, useOrganizations } from "./hooks";
import { OrganizationLogo } from "./OrganizationLogo";

/**
 * The top bar's organization switcher: shows the active organization ("Personal" when none),
 * and opens a list of the user's organizations to switch to (`set-active`), with links to the
 * organization's page and to creating one. A disclosure, not a menu: Tab moves through it,
 * Escape closes it and returns to its button.
 */
export function OrganizationSwitcher({ session }: { session: SessionData }) {
  const t = useT();
  const userId = session.user.id;
  const activeId = session.session.activeOrganizationId ?? null;
  const { data: organizations, error, isLoading, mutate } = useOrganizations(userId);
  const [open, setOpen] = useState(false);
  const [switching, setSwitching] = useState<string | null>();
  const [message, setMessage] = useState<string>();
  const router = useRouter();
  const pathname = usePathname();
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const active = organizations?.find((o) => o.id === activeId);
  const label = activeId ? (active?.name ?? t("switcher.organization")) : t("switcher.personal");

  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, root, button);

  // A page change (a link in the panel) closes it.
  useEffect(() => setOpen(false), [pathname]);

  async function choose(organizationId: string | null) {
    if (organizationId === activeId) {
      setOpen(false);
      if (organizationId) router.push("/organization/");
      return;
    }
    setSwitching(organizationId);
    setMessage(undefined);
    const { error } = await settle(authClient.organization.setActive({ organizationId }));
    setSwitching(undefined);
    if (error) {
      setMessage(describe(error));
      return;
    }
    setOpen(false);
    button.current?.focus();
    await refreshSessionAndOrganizations();
    if (organizationId) router.push("/organization/");
  }

  return (
    <div className="org-switcher" ref={root}>
      <button
        ref={button}
        type="button"
        className="org-switcher-button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        <OrganizationLogo name={label} logo={active?.logo} size="small" />
        <span className="visually-hidden">{t("switcher.currentLabel")}</span>
        <span className="org-switcher-name">{label}</span>
        <span aria-hidden="true" className="org-switcher-caret">
          ▾
        </span>
      </button>
      <div id={panelId} className="org-panel" hidden={!open}>
        <p className="org-panel-title" id={`${panelId}-title`}>
          {t("switcher.title")}
        </p>
        {message ? (
          <p className="field-error" role="alert">
            {message}
          </p>
        ) : null}
        <ul className="org-panel-list" aria-labelledby={`${panelId}-title`}>
          <li>
            <button type="button" className="org-option" aria-current={activeId === null ? "true" : undefined} onClick={() => void choose(null)} disabled={switching !== undefined}>
              <span>{t("switcher.personalAccount")}</span>
              {activeId === null ? <span aria-hidden="true">✓</span> : null}
            </button>
          </li>
          {(organizations ?? []).map((o) => (
            <li key={o.id}>
              <button type="button" className="org-option" aria-current={o.id === activeId ? "true" : undefined} onClick={() => void choose(o.id)} disabled={switching !== undefined}>
                <span className="org-option-name">{switching === o.id ? t("switcher.switchingTo", { name: o.name }) : o.name}</span>
                {o.id === activeId ? <span aria-hidden="true">✓</span> : null}
              </button>
            </li>
          ))}
        </ul>
        {isLoading ? <p className="muted">{t("switcher.loading")}</p> : null}
        {error ? <LoadError message={t("switcher.loadFailed")} error={error} retry={mutate} /> : null}
        <div className="org-panel-links">
          <Link href="/organization/">{activeId ? t("switcher.manage") : t("switcher.all")}</Link>
          <Link href="/organization/create/">{t("switcher.create")}</Link>
        </div>
      </div>
    </div>
  );
}
