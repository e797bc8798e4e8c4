"use client";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { currentCallback, safeCallback, withCallback } from "@/lib/callback";
import * as rules from "@/lib/rules";
import { resetCache, useSession } from "@/lib/session";
import { SignInForm } from "./SignInForm";
import { SocialButtons } from "./SocialButtons";
import { SignUpForm } from "./SignUpForm";

/**
 * The invited address of a page opened from an invitation (`?email=…&callbackURL=/accept-invitation/…`,
 * the invitation page's links): sign-up fills it in. Only then, and only a well-formed address:
 * the page calls it the invited one.
 */
export function invitedEmail(location: { search: string }): string | undefined {
  const params = new URLSearchParams(location.search);
  const email = params.get("email")?.trim();
  if (!email || rules.email(email) !== undefined) return undefined;
  return /^\/accept-invitation(\/|\?|$)/.test(safeCallback(params.get("callbackURL"))) ? email : undefined;
}

/** `href` with the invited address added, so it survives going between sign-in and sign-up. */
function withEmail(href: string, email: string | undefined): string {
  return email ? `${href}${href.includes("?") ? "&" : "?"}email=${encodeURIComponent(email)}` : href;
}

/** Sign-in or sign-up; afterwards (or when already signed in) on to the callback. */
export function AuthPage({ mode }: { mode: "sign-in" | "sign-up" }) {
  const router = useRouter();
  const { data } = useSession();
  const [callback, setCallback] = useState("/");
  const [invited, setInvited] = useState<string>();
  // Read after mount: the page is one static file for every address.
  useEffect(() => {
    setCallback(currentCallback());
    setInvited(invitedEmail(window.location));
  }, []);
  useEffect(() => {
    if (data) router.replace(currentCallback());
  }, [data, router]);

  const done = async () => {
    await resetCache();
    router.replace(currentCallback());
  };
  const page = withCallback(`/${mode}/`, callback);
  return (
    <>
      {mode === "sign-in" ? (
        <SignInForm onSignedIn={done} signUpHref={withEmail(withCallback("/sign-up/", callback), invited)} />
      ) : (
        <SignUpForm onSignedUp={done} signInHref={withEmail(withCallback("/sign-in/", callback), invited)} invitedEmail={invited} />
      )}
      <SocialButtons callback={callback} page={page} />
    </>
  );
}
