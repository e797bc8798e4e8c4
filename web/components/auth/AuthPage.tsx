"use client";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { currentCallback, withCallback } from "@/lib/callback";
import { resetCache, useSession } from "@/lib/session";
import { SignInForm } from "./SignInForm";
import { SocialButtons } from "./SocialButtons";
import { SignUpForm } from "./SignUpForm";

/** Sign-in or sign-up; afterwards (or when already signed in) on to the callback. */
export function AuthPage({ mode }: { mode: "sign-in" | "sign-up" }) {
  const router = useRouter();
  const { data } = useSession();
  const [callback, setCallback] = useState("/");
  useEffect(() => setCallback(currentCallback()), []);
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
        <SignInForm onSignedIn={done} signUpHref={withCallback("/sign-up/", callback)} />
      ) : (
        <SignUpForm onSignedUp={done} signInHref={withCallback("/sign-in/", callback)} />
      )}
      <SocialButtons callback={callback} page={page} />
    </>
  );
}
