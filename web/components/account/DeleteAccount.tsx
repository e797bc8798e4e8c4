"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
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
      <h2 id="delete-title">Delete account</h2>
      <p className="muted">Your account, its sign-in methods and every session end for good.</p>
      <Button tone="danger" busy={false} onClick={() => setOpen(true)}>
        Delete account…
      </Button>
      <Dialog open={open} title="Delete your account?" onClose={close}>
        {mailed ? (
          <p role="status">
            We sent a link to <strong>{email}</strong>. Open it in this browser, while signed in, to delete your
            account. It works for a day.
          </p>
        ) : (
          <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate>
            <p>This cannot be undone.</p>
            <FormAlert message={form.notice?.text} />
            <Field
              label="Password"
              type="password"
              autoComplete="current-password"
              hint="Leave it empty if your account has no password; then you must have signed in recently."
              {...form.field("password")}
            />
            <div className="actions">
              <Button type="submit" tone="danger" busy={form.busy} busyLabel="Deleting…">
                Delete my account
              </Button>
              <Button tone="secondary" busy={false} onClick={close}>
                Keep it
              </Button>
            </div>
          </form>
        )}
      </Dialog>
    </section>
  );
}
