"use client";
import HCaptcha from "@hcaptcha/react-hcaptcha";
import { useImperativeHandle, useRef } from "react";
import type { ProviderWidgetProps } from "./types";

/** hCaptcha (its script comes from js.hcaptcha.com). */
export default function HCaptchaWidget({ siteKey, onToken, onLapse, onFail, controls }: ProviderWidgetProps) {
  const widget = useRef<HCaptcha>(null);
  useImperativeHandle(controls, () => ({ reset: () => widget.current?.resetCaptcha() }), []);
  return (
    <HCaptcha ref={widget} sitekey={siteKey} onVerify={(token) => onToken(token)} onExpire={onLapse} onChalExpired={onLapse} onError={onFail} />
  );
}
