"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { currentCallback, withCallback } from "@/lib/callback";
import { describe, settle, type ApiError } from "@/lib/errors";
import { t, useT } from "@/lib/i18n/auth";
import { useQueryParam } from "@/lib/query";
import { required, sixDigitCode } from "@/lib/rules";
import { resetCache, useSession } from "@/lib/session";
import { parseMethods, type TwoFactorMethod } from "@/lib/two-factor";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";

type Mode = TwoFactorMethod | "backup";

/** Each method's words, as catalog keys (looked up at render, in the language of the moment). */
const TEXT = {
  totp: { choice: "twoFactor.totpChoice", label: "twoFactor.totpLabel" },
  otp: { choice: "twoFactor.otpChoice", label: "twoFactor.otpLabel" },
  backup: { choice: "twoFactor.backupChoice", label: "twoFactor.backupLabel" },
} as const satisfies Record<Mode, { choice: string; label: string }>;
const backupRequired = required(() => t("twoFactor.backupRequired"));

/** Refusals after which this pending sign-in is over: only signing in again helps. */
const ENDED = new Set(["INVALID_TWO_FACTOR_COOKIE", "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE"]);
const ended = (error: ApiError | null) => Boolean(error?.code && ENDED.has(error.code));

/** `/sign-in/two-factor/`: a sign-in's second step. The address says which methods it offers. */
export function TwoFactorForm() {
  const t = useT();
  const methods = useQueryParam("methods");
  if (methods === undefined) {
    return (
      <div className="card skeleton" aria-busy="true">
        <span className="visually-hidden">{t("twoFactor.loading")}</span>
      </div>
    );
  }
  return <Challenge methods={parseMethods(methods)} />;
}

function Challenge({ methods }: { methods: TwoFactorMethod[] | null }) {
  const t = useT();
  const router = useRouter();
  const { data: session } = useSession();
  // Rendered only in the browser (after the query is read), so the address is at hand.
  const [callback] = useState(currentCallback);
  // No `methods`: most likely the mailed code's link, so the mailed code it is.
  const [mode, setMode] = useState<Mode>(methods?.includes("totp") ? "totp" : "otp");
  const [sent, setSent] = useState(methods === null);
  const [sending, setSending] = useState(false);
  const [trust, setTrust] = useState(false);
  const [over, setOver] = useState<string>();
  const form = useForm({ code: "" }, { code: mode === "backup" ? backupRequired : sixDigitCode });
  const offered: Mode[] = [...(methods ?? ["totp", "otp"]), "backup"];

  useEffect(() => {
    if (session) router.replace(callback);
  }, [session, router, callback]);
  // The code field has the focus on arrival, after a change of method and after a refusal.
  useEffect(() => form.focus("code"), [mode, form.errors.code]);

  const submit = form.onSubmit(
    async () => {
      const code = mode === "backup" ? form.values.code.trim() : form.values.code.replace(/\s+/g, "");
      const body = { code, trustDevice: trust };
      const result = await (mode === "totp"
        ? authClient.twoFactor.verifyTotp(body)
        : mode === "otp"
          ? authClient.twoFactor.verifyOtp(body)
          : authClient.twoFactor.verifyBackupCode(body));
      if (ended(result.error)) setOver(describe(result.error as ApiError));
      return result;
    },
    async () => {
      await resetCache();
      router.replace(callback);
    },
  );

  async function sendCode(again: boolean) {
    setSending(true);
    form.setNotice(undefined);
    const { error } = await settle(authClient.twoFactor.sendOtp({}));
    setSending(false);
    if (ended(error)) return setOver(describe(error as ApiError));
    if (error) return form.setNotice({ tone: "error", text: describe(error) });
    setSent(true);
    form.setNotice({ tone: "success", text: again ? t("twoFactor.codeSentAgain") : t("twoFactor.codeSent") });
    form.focus("code");
  }

  function choose(next: Mode) {
    setMode(next);
    form.reset();
    form.setNotice(undefined);
    if (next === "otp" && !sent) void sendCode(false);
  }

  if (over) return <SignInAgain message={over} href={withCallback("/sign-in/", callback)} />;

  const intro =
    mode === "totp"
      ? t("twoFactor.totpIntro")
      : mode === "backup"
        ? t("twoFactor.backupIntro")
        : sent
          ? t("twoFactor.otpSentIntro")
          : t("twoFactor.otpIntro");

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="two-factor-title">
      <h1 id="two-factor-title">{t("twoFactor.title")}</h1>
      <p className="muted">{intro}</p>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <Field
        label={t(TEXT[mode].label)}
        inputMode={mode === "backup" ? "text" : "numeric"}
        autoComplete={mode === "backup" ? "off" : "one-time-code"}
        autoCapitalize="none"
        spellCheck={false}
        required
        {...form.field("code")}
        onBlur={undefined}
      />
      {mode === "otp" ? (
        <Button tone="secondary" busy={sending} busyLabel={t("twoFactor.sending")} onClick={() => void sendCode(sent)}>
          {sent ? t("twoFactor.sendAnother") : t("twoFactor.emailCode")}
        </Button>
      ) : null}
      <div className="checkbox">
        <input id="trust-device" type="checkbox" checked={trust} onChange={(e) => setTrust(e.target.checked)} />
        <label htmlFor="trust-device">{t("twoFactor.trustDevice")}</label>
      </div>
      <Button type="submit" busy={form.busy} busyLabel={t("twoFactor.submitting")}>
        {t("twoFactor.submit")}
      </Button>
      <div>
        <p id="other-ways" className="muted">
          {t("twoFactor.otherWays")}
        </p>
        <ul className="choices" aria-labelledby="other-ways">
          {offered
            .filter((m) => m !== mode)
            .map((m) => (
              <li key={m}>
                <button type="button" className="link-button" onClick={() => choose(m)}>
                  {t(TEXT[m].choice)}
                </button>
              </li>
            ))}
        </ul>
      </div>
      <p className="form-footer">
        <Link href={withCallback("/sign-in/", callback)}>{t("twoFactor.backToSignIn")}</Link>
      </p>
    </form>
  );
}

/** The pending sign-in is over (timed out, or too many wrong codes): start again. */
function SignInAgain({ message, href }: { message: string; href: string }) {
  const t = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="card form" aria-labelledby="two-factor-title">
      <h1 id="two-factor-title" ref={heading} tabIndex={-1}>
        {t("twoFactor.title")}
      </h1>
      <p role="alert" className="alert alert-error">
        {message}
      </p>
      <Link className="button button-primary" href={href}>
        {t("twoFactor.signInAgain")}
      </Link>
    </section>
  );
}
