"use client";
import { useEffect, useId, useState } from "react";
import { authClient, type SessionUser } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { activate, useLanguageChange } from "@/lib/i18n";
import { useT } from "@/lib/i18n/common";
import { codeOfTag, fromBrowser, isTag, LANGUAGES, tagOfCode, type Tag } from "@/lib/i18n/languages";
import { refreshSession } from "@/lib/session";

/** Where a visitor's choice is kept in this browser (a signed-in user's is on their account). */
const STORAGE_KEY = "gatehouse.language";

function stored(): Tag | undefined {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return isTag(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function remember(tag: Tag) {
  try {
    window.localStorage.setItem(STORAGE_KEY, tag);
  } catch {
    // Private mode without storage: the choice lasts this page.
  }
}

/**
 * The app's language: the signed-in user's saved one (the mailer writes in it too), else this
 * browser's earlier choice, else the browser's languages. After hydration, so the first paint
 * matches the exported HTML (English).
 */
export function useLanguageFollowsUser(user: SessionUser | undefined) {
  const saved = user ? tagOfCode(user.language) : undefined;
  useEffect(() => {
    const tag = saved ?? stored() ?? fromBrowser(navigator.languages);
    if (saved) remember(saved);
    void activate(tag);
  }, [saved]);
}

/** The language menu: switches at once, and saves the choice on the account when signed in. */
export function LanguagePicker({ user }: { user: SessionUser | undefined }) {
  const t = useT();
  const current = useLanguageChange();
  const id = useId();
  const [error, setError] = useState<string>();

  async function choose(tag: Tag) {
    setError(undefined);
    remember(tag);
    await activate(tag);
    if (!user) return;
    const { error } = await settle(authClient.updateUser({ language: codeOfTag(tag) }));
    if (error) setError(t("shell.languageSaveFailed", { reason: describe(error) }));
    else await refreshSession();
  }

  return (
    <div className="language-picker">
      <label htmlFor={id}>{t("shell.language")}</label>
      <select id={id} value={current} onChange={(e) => isTag(e.target.value) && void choose(e.target.value)}>
        {LANGUAGES.map((language) => (
          <option key={language.tag} value={language.tag} lang={language.tag}>
            {language.name}
          </option>
        ))}
      </select>
      {error ? (
        <p role="alert" className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
