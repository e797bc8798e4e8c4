"use client";
import { lazy, Suspense, useCallback, useId, useRef, useState, type ComponentType } from "react";
import type { ApiError } from "@/lib/errors";
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
export const NO_TOKEN = "Complete the check above.";
const FAILED_TO_LOAD = "The check could not load or did not work. Reload the page and try again.";
/** The server's refusals that are about the check, in plain words. */
const REFUSALS: Record<string, string> = {
  MISSING_RESPONSE: "Complete the check above, then try again.",
  VERIFICATION_FAILED: "The check did not confirm you are a person. Complete it again, then try again.",
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
  const { data, error: unread } = useCaptchaConfig();
  const [token, setToken] = useState<string>();
  const [error, setError] = useState<string>();
  const controls = useRef<CaptchaControls | null>(null);
  const provider = data?.provider;
  const siteKey = data?.siteKey;
  const listed = (endpoint: string | undefined) =>
    endpoint !== undefined && (data?.endpoints ?? []).some((pattern) => coversEndpoint(pattern, endpoint));
  const on = Boolean(provider && siteKey && endpoints.some(listed));
  const needed = on && listed(target);

  const onToken = useCallback((value: string) => {
    setToken(value);
    setError(undefined);
  }, []);
  const onLapse = useCallback(() => setToken(undefined), []);
  const onFail = useCallback(() => {
    setToken(undefined);
    setError(FAILED_TO_LOAD);
  }, []);

  const guard: SubmitGuard = {
    check: () => {
      if (!needed || token) return true;
      // A widget that failed to load keeps saying so: "complete the check" would not help.
      setError((shown) => (shown === FAILED_TO_LOAD ? shown : NO_TOKEN));
      return false;
    },
    settled: (failure: ApiError | null) => {
      if (!on || !failure) return false;
      // A token counts once: whatever the refusal, the next try needs a new one.
      setToken(undefined);
      controls.current?.reset();
      const message = failure.code ? REFUSALS[failure.code] : undefined;
      if (message) setError(message);
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
  const id = useId();
  if (!widget) return null;
  const { provider, error, ...props } = widget;
  const Widget = WIDGETS[provider];
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <fieldset className="field captcha" aria-describedby={error ? `${errorId} ${hintId}` : hintId}>
      <legend>Security check</legend>
      <p id={hintId} className="hint">
        This confirms a person, not a program, is sending the form.
      </p>
      <Suspense fallback={<p className="hint">Loading the check…</p>}>
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
