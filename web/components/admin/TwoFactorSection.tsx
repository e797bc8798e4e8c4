"use client";
import { useState } from "react";
import type { components } from "@/lib/api/auth";
import { authClient } from "@/lib/auth-client";
import { settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/admin";
import { Button } from "../Button";
import type { Run } from "./actions";
import type { AdminUser } from "./hooks";

/** Gatehouse's own route, without a client-plugin method: the user, their second factor off. */
const resetTwoFactor = (userId: string) =>
  authClient.$fetch<components["schemas"]["UserResponse"]>("/admin/reset-two-factor", { method: "POST", body: { userId } });

/** Whether the user has two-step verification on, and resetting it (after a confirmation). */
export function TwoFactorSection({ user, busy, run }: { user: AdminUser; busy: string | undefined; run: Run }) {
  const t = useT();
  const [confirmReset, setConfirmReset] = useState(false);
  return (
    <section className="dialog-section" aria-labelledby="two-factor-title">
      <h3 id="two-factor-title">{t("twoFactor.title")}</h3>
      <p data-testid="two-factor-status">{user.twoFactorEnabled ? t("twoFactor.on") : t("twoFactor.off")}</p>
      {!user.twoFactorEnabled ? null : confirmReset ? (
        <>
          <p>{t("twoFactor.confirmBody")}</p>
          <div className="actions">
            <Button
              tone="danger"
              busy={busy === "two-factor"}
              busyLabel={t("twoFactor.resetting")}
              onClick={() =>
                void (async () => {
                  if (await run("two-factor", () => settle(resetTwoFactor(user.id)), t("twoFactor.done"))) setConfirmReset(false);
                })()
              }
            >
              {t("twoFactor.confirm")}
            </Button>
            <button type="button" className="button button-secondary" onClick={() => setConfirmReset(false)}>
              {t("twoFactor.keep")}
            </button>
          </div>
        </>
      ) : (
        <Button tone="danger" busy={false} onClick={() => setConfirmReset(true)}>
          {t("twoFactor.reset")}
        </Button>
      )}
    </section>
  );
}
