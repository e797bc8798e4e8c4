"use client";
import { authClient } from "@/lib/auth-client";
import { settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/admin";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { SelectField } from "../SelectField";
import { BAN_LENGTHS, type BanLength, type BanRequest, type Run } from "./actions";
import type { AdminUser } from "./hooks";

/**
 * Ban or unban. The form says why (optional: mailed to them) and for how long; sending it
 * only asks for the confirmation (`onAsk`), which the dialog's owner shows and which bans.
 */
export function BanSection({ user, busy, run, onAsk }: { user: AdminUser; busy: string | undefined; run: Run; onAsk: (ban: BanRequest) => void }) {
  const t = useT();
  const form = useForm<"banReason" | "banLength">({ banReason: "", banLength: BAN_LENGTHS[0]?.id ?? "forever" }, {});
  return (
    <section className="dialog-section" aria-labelledby="ban-title">
      <h3 id="ban-title">{t("ban.title")}</h3>
      {user.banned ? (
        <>
          <p className="muted">{t("ban.unbanHint")}</p>
          <Button
            tone="secondary"
            busy={busy === "unban"}
            busyLabel={t("ban.unbanning")}
            onClick={() => void run("unban", () => settle(authClient.admin.unbanUser({ userId: user.id })), t("ban.unbanned"))}
          >
            {t("ban.unban")}
          </Button>
        </>
      ) : (
        <form
          method="post"
          className="form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            onAsk({ reason: form.values.banReason.trim(), length: form.values.banLength as BanLength });
          }}
        >
          <Field label={t("ban.reason")} hint={t("ban.reasonHint")} maxLength={500} autoComplete="off" {...form.field("banReason")} onBlur={undefined} />
          <SelectField label={t("ban.length")} {...form.field("banLength")} onBlur={undefined}>
            {BAN_LENGTHS.map((l) => (
              <option key={l.id} value={l.id}>
                {t(l.label)}
              </option>
            ))}
          </SelectField>
          <div className="actions">
            <Button type="submit" tone="danger" busy={false}>
              {t("ban.submit")}
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
