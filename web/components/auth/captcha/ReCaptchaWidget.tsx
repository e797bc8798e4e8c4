"use client";
import ReCAPTCHA from "react-google-recaptcha";
import { useImperativeHandle, useRef } from "react";
import type { ProviderWidgetProps } from "./types";

/** Google reCAPTCHA v2, the checkbox (its script comes from www.google.com/recaptcha). */
export default function ReCaptchaWidget({ siteKey, onToken, onLapse, onFail, controls }: ProviderWidgetProps) {
  const widget = useRef<ReCAPTCHA>(null);
  useImperativeHandle(controls, () => ({ reset: () => widget.current?.reset() }), []);
  return (
    <ReCAPTCHA
      ref={widget}
      sitekey={siteKey}
      // `null` when the token expired.
      onChange={(token) => (token ? onToken(token) : onLapse())}
      onExpired={onLapse}
      onErrored={onFail}
    />
  );
}
