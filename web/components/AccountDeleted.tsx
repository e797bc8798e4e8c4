"use client";
import Link from "next/link";
import { translator } from "@/lib/i18n";
import type { CommonMessages } from "@/lib/i18n/common";

// The shell registers these words (see NotFound).
const { useT } = translator<CommonMessages>("common");

/** After deletion: what is gone, and the way back in. */
export function AccountDeleted() {
  const t = useT();
  return (
    <section className="card form" aria-labelledby="deleted-title">
      <h1 id="deleted-title">{t("accountDeleted.title")}</h1>
      <p role="status">{t("accountDeleted.body")}</p>
      <Link className="button button-secondary" href="/sign-up/">
        {t("accountDeleted.createNew")}
      </Link>
    </section>
  );
}
