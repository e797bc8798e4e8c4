"use client";
import type { SessionData } from "@/lib/auth-client";
import { useT } from "@/lib/i18n/account";
import { rich } from "@/lib/i18n/rich";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { updateProfile } from "./hooks";

/** Name, picture address and username; shown at once (optimistic), rolled back if refused. */
export function ProfileForm({ session }: { session: SessionData }) {
  const t = useT();
  const user = session.user;
  const shownUsername = user.displayUsername ?? user.username ?? "";
  const form = useForm(
    { name: user.name ?? "", image: user.image ?? "", username: shownUsername },
    {
      name: rules.required(() => t("profile.nameRequired")),
      image: rules.imageUrl,
      // The plugin has no way to remove a username, only to change it.
      username: (value: string) =>
        user.username && value.trim() === ""
          ? t("profile.usernameCannotBeRemoved")
          : rules.username(value),
    },
  );

  const submit = form.onSubmit(
    async () => {
      const username = form.values.username.trim();
      const changes = {
        name: form.values.name.trim(),
        image: form.values.image.trim() || null,
        ...(username && username !== shownUsername ? { username, displayUsername: username } : {}),
      };
      const refused = await updateProfile(changes);
      return { data: null, error: refused };
    },
    () => form.setNotice({ tone: "success", text: t("profile.saved") }),
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="profile-title">
      <h2 id="profile-title">{t("profile.title")}</h2>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <p className="muted">{rich(t("profile.email", { email: user.email }), { strong: (text) => <strong>{text}</strong> })}</p>
      <Field label={t("profile.name")} autoComplete="name" required {...form.field("name")} />
      <Field label={t("profile.picture")} type="url" inputMode="url" placeholder="https://" {...form.field("image")} />
      <Field
        label={t("profile.username")}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        hint={t("profile.usernameHint", { min: rules.USERNAME_MIN, max: rules.USERNAME_MAX })}
        {...form.field("username")}
      />
      <Button type="submit" busy={form.busy} busyLabel={t("profile.saving")}>
        {t("profile.submit")}
      </Button>
    </form>
  );
}
