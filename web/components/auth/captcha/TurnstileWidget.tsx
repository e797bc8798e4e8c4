"use client";
import { Turnstile, type TurnstileInstance } from "@marsidev/react-turnstile";
import { useImperativeHandle, useMemo, useRef } from "react";
import type { ProviderWidgetProps } from "./types";

/** Cloudflare Turnstile (its script comes from challenges.cloudflare.com). */
export default function TurnstileWidget({ siteKey, onToken, onLapse, onFail, controls }: ProviderWidgetProps) {
  const widget = useRef<TurnstileInstance>(null);
  useImperativeHandle(controls, () => ({ reset: () => widget.current?.reset() }), []);
  const scriptOptions = useMemo(() => ({ onError: onFail }), [onFail]);
  return (
    <Turnstile
      ref={widget}
      siteKey={siteKey}
      onSuccess={onToken}
      onExpire={onLapse}
      onError={onFail}
      scriptOptions={scriptOptions}
      // The token lives in the form's state, not in a hidden input.
      options={{ responseField: false, size: "flexible" }}
    />
  );
}
