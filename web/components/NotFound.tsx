"use client";
import Link from "next/link";
import { translator } from "@/lib/i18n";
import type { CommonMessages } from "@/lib/i18n/common";

// The shell registers these words; importing them here would put a copy in every page's 404 chunk.
const { useT } = translator<CommonMessages>("common");

/** The 404 page's screen: nothing here, and the way home. */
export function NotFound() {
  const t = useT();
  return (
    <section className="card" aria-labelledby="nf-title">
      <h1 id="nf-title">{t("notFound.title")}</h1>
      <p>{t("notFound.body")}</p>
      <Link className="button button-secondary" href="/">
        {t("notFound.home")}
      </Link>
    </section>
  );
}
