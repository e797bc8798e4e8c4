"use client";
import { useRef } from "react";
import type { EndpointSecret } from "@/lib/billing";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/billing";
import { rich } from "@/lib/i18n/rich";
import { CopyButton } from "./CopyButton";

/** An endpoint's revealed signing secret, and the previous one while it still signs, each with a copy button. */
export function SecretPanel({ secret }: { secret: EndpointSecret }) {
  const t = useT();
  const current = useRef<HTMLElement>(null);
  const previous = useRef<HTMLElement>(null);
  return (
    <div className="secret" data-testid="endpoint-secret">
      <p>{rich(t("endpoint.signingSecret", { secret: secret.secret }), { code: () => <code ref={current}>{secret.secret}</code> })}</p>
      <CopyButton text={secret.secret} label={t("endpoint.copySecret")} select={current} />
      {secret.previousSecret ? (
        <>
          <p className="muted">
            {rich(t("endpoint.previousSecret", { secret: secret.previousSecret, date: formatDate(secret.previousSecretExpiresAt) }), {
              code: () => <code ref={previous}>{secret.previousSecret}</code>,
            })}
          </p>
          <CopyButton text={secret.previousSecret} label={t("endpoint.copyPreviousSecret")} select={previous} />
        </>
      ) : null}
    </div>
  );
}
