"use client";
import type { SessionData } from "@/lib/auth-client";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { updateProfile } from "./hooks";

/** Name, picture address and username; shown at once (optimistic), rolled back if refused. */
export function ProfileForm({ session }: { session: SessionData }) {
  const user = session.user;
  const shownUsername = user.displayUsername ?? user.username ?? "";
  const form = useForm(
    { name: user.name ?? "", image: user.image ?? "", username: shownUsername },
    {
      name: rules.required("your name"),
      image: rules.imageUrl,
      // The plugin has no way to remove a username, only to change it.
      username: (value: string) =>
        user.username && value.trim() === ""
          ? "A username cannot be removed; choose another one instead."
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
    () => form.setNotice({ tone: "success", text: "Profile saved." }),
  );

  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <p className="muted">
        Email: <strong>{user.email}</strong>
      </p>
      <Field label="Name" autoComplete="name" required {...form.field("name")} />
      <Field label="Picture address" type="url" inputMode="url" placeholder="https://" {...form.field("image")} />
      <Field
        label="Username"
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        hint={`${rules.USERNAME_MIN} to ${rules.USERNAME_MAX} letters, digits, underscores or dots.`}
        {...form.field("username")}
      />
      <Button type="submit" busy={form.busy} busyLabel="Saving…">
        Save profile
      </Button>
    </form>
  );
}
