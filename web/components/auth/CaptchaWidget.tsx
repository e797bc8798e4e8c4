"use client";
import { lazy, Suspense, useCallback, useId, useRef, useState, type ComponentType } from "react";
import type { ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/auth";
import type { SubmitGuard } from "@/lib/useForm";
import { coversEndpoint } from "./captcha/pattern";
import type { CaptchaControls, ProviderWidgetProps } from "./captcha/types";
import { useCaptchaConfig, type CaptchaConfig } from "./hooks";

type Provider = NonNullable<CaptchaConfig["provider"]>;

// Each provider's library loads only where the server configured that provider.
const WIDGETS: Record<Provider, ComponentType<ProviderWidgetProps>> = {
  "cloudflare-turnstile": lazy(() => import("./captcha/TurnstileWidget")),
  hcaptcha: lazy(() => import("./captcha/HCaptchaWidget")),
  "google-recaptcha": lazy(() => import("./captcha/ReCaptchaWidget")),
};

export const CAPTCHA_HEADER = "x-captcha-response";
/** What can be wrong with the check, as catalog keys (worded at render, in the language of the moment). */
type Problem = "captcha.noToken" | "captcha.failedToLoad" | "captcha.missingResponse" | "captcha.verificationFailed";
const NO_TOKEN = "captcha.noToken";
const FAILED_TO_LOAD = "captcha.failedToLoad";
/** The server's refusals that are about the check, in plain words. */
const REFUSALS: Record<string, Problem> = {
  MISSING_RESPONSE: "captcha.missingResponse",
  VERIFICATION_FAILED: "captcha.verificationFailed",
};

export interface CaptchaWidgetProps extends Omit<ProviderWidgetProps, "siteKey"> {
  provider: Provider;
  siteKey: string;
  error: string | undefined;
}

/**
 * A form's captcha. `endpoints`: the paths below /api/auth that the form may post to
 * ("/sign-in/email"); `target`: the one this submit posts to (the first by default). The
 * widget shows when the server wants a token on any of them (`widget` is undefined when not);
 * a token is needed and sent when it wants one on `target`. The form passes `guard` to its
 * submit (no token: no request, an error beside the widget; a refusal: the widget anew) and
 * spreads `fetchOptions` into the client call (the token as the `x-captcha-response` header),
 * and keeps its submit button off while `pending`. Settings that cannot be read count as off
 * (a server that wants a token anyway says so, at the top of the form).
 */
export function useCaptcha(endpoints: readonly string[], target = endpoints[0]) {
  const t = useT();
  const { data, error: unread } = useCaptchaConfig();
  const [token, setToken] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const error = problem && t(problem);
  const controls = useRef<CaptchaControls | null>(null);
  const provider = data?.provider;
  const siteKey = data?.siteKey;
  const listed = (endpoint: string | undefined) =>
    endpoint !== undefined && (data?.endpoints ?? []).some((pattern) => coversEndpoint(pattern, endpoint));
  const on = Boolean(provider && siteKey && endpoints.some(listed));
  const needed = on && listed(target);

  const onToken = useCallback((value: string) => {
    setToken(value);
    setProblem(undefined);
  }, []);
  const onLapse = useCallback(() => setToken(undefined), []);
  const onFail = useCallback(() => {
    setToken(undefined);
    setProblem(FAILED_TO_LOAD);
  }, []);

  const guard: SubmitGuard = {
    check: () => {
      if (!needed || token) return true;
      // A widget that failed to load keeps saying so: "complete the check" would not help.
      setProblem((shown) => (shown === FAILED_TO_LOAD ? shown : NO_TOKEN));
      return false;
    },
    settled: (failure: ApiError | null) => {
      if (!on || !failure) return false;
      // A token counts once: whatever the refusal, the next try needs a new one.
      setToken(undefined);
      controls.current?.reset();
      const message = failure.code ? REFUSALS[failure.code] : undefined;
      if (message) setProblem(message);
      return message !== undefined;
    },
  };

  return {
    guard,
    /** The server's settings are on their way: the form waits to know whether it needs a token. */
    pending: data === undefined && unread === undefined,
    fetchOptions: needed && token ? { fetchOptions: { headers: { [CAPTCHA_HEADER]: token } } } : {},
    widget:
      on && provider && siteKey
        ? ({ provider, siteKey, error, onToken, onLapse, onFail, controls } satisfies CaptchaWidgetProps)
        : undefined,
  };
}

/** The check, labelled, with its error beside it; nothing when the form needs none. */
export function CaptchaWidget({ widget }: { widget: CaptchaWidgetProps | undefined }) {
  const t = useT();
  const id = useId();
  if (!widget) return null;
  const { provider, error, ...props } = widget;
  const Widget = WIDGETS[provider];
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <fieldset className="field captcha" aria-describedby={error ? `${errorId} ${hintId}` : hintId}>
      <legend>{t("captcha.legend")}</legend>
      <p id={hintId} className="hint">
        {t("captcha.hint")}
      </p>
      <Suspense fallback={<p className="hint">{t("captcha.loading")}</p>}>
        <Widget {...props} />
      </Suspense>
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
