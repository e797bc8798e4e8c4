"use client";
import { useEffect } from "react";
import { type CommonMessages, useT } from "@/lib/i18n/common";

type TitleKey = Extract<keyof CommonMessages, `title.${string}`>;

/** Each page's title key by its path (the exported HTML carries the English one). */
const TITLES: Record<string, TitleKey> = {
  "/": "title.home",
  "/sign-in/": "title.signIn",
  "/sign-in/two-factor/": "title.twoFactor",
  "/sign-up/": "title.signUp",
  "/forgot-password/": "title.forgotPassword",
  "/reset-password/": "title.resetPassword",
  "/verify-email/": "title.verifyEmail",
  "/account/": "title.account",
  "/account-deleted/": "title.accountDeleted",
  "/admin/": "title.admin",
  "/organization/": "title.organization",
  "/organization/billing/": "title.organizationBilling",
  "/organization/create/": "title.organizationCreate",
  "/accept-invitation/": "title.invitation",
  "/dev/mailbox/": "title.mailbox",
};

/** The document's title in the app's language: "<page> · <product>". */
export function usePageTitle(pathname: string, product: string) {
  const t = useT();
  const path = pathname.endsWith("/") ? pathname : `${pathname}/`;
  // An invitation's link carries its id in the path (`/accept-invitation/<id>/`).
  const key = TITLES[path] ?? (path.startsWith("/accept-invitation/") ? "title.invitation" : "title.notFound");
  const title = `${t(key)} · ${product}`;
  useEffect(() => {
    document.title = title;
  }, [title]);
}
