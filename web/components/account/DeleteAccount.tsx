"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/account";
import { rich } from "@/lib/i18n/rich";
import { resetCache } from "@/lib/session";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Dialog } from "../Dialog";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";

/** Where a mailed deletion link leads once it has deleted the account. */
const DELETED_PAGE = "/account-deleted/";

/**
 * Deleting the account, behind a dialog that asks for the password. When the server confirms
 * deletions by mail, the dialog says where the link went instead.
 */
export function DeleteAccount({ email }: { email: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const router = useRouter();
  const form = useForm({ password: "" }, {});
  const [mailed, setMailed] = useState(false);

  const submit = form.onSubmit(
    () => authClient.deleteUser({ password: form.values.password, callbackURL: DELETED_PAGE }),
    async (data) => {
      if (data && "message" in data && data.message === "Verification email sent") {
        setMailed(true);
        return;
      }
      await resetCache();
      router.replace(DELETED_PAGE);
    },
  );
  const close = () => {
    setOpen(false);
    setMailed(false);
    form.reset();
  };

  return (
    <section className="card" aria-labelledby="delete-title">
      <h2 id="delete-title">{t("delete.title")}</h2>
      <p className="muted">{t("delete.intro")}</p>
      <Button tone="danger" busy={false} onClick={() => setOpen(true)}>
        {t("delete.open")}
      </Button>
      <Dialog open={open} title={t("delete.dialogTitle")} onClose={close}>
        {mailed ? (
          <p role="status">{rich(t("delete.mailed", { email }), { strong: (text) => <strong>{text}</strong> })}</p>
        ) : (
          <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate>
            <p>{t("delete.cannotBeUndone")}</p>
            <FormAlert message={form.notice?.text} />
            <Field
              label={t("delete.password")}
              type="password"
              autoComplete="current-password"
              hint={t("delete.passwordHint")}
              {...form.field("password")}
            />
            <div className="actions">
              <Button type="submit" tone="danger" busy={form.busy} busyLabel={t("delete.deleting")}>
                {t("delete.submit")}
              </Button>
              <Button tone="secondary" busy={false} onClick={close}>
                {t("delete.keep")}
              </Button>
            </div>
          </form>
        )}
      </Dialog>
    </section>
  );
}
