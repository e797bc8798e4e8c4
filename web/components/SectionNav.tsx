"use client";
import Link from "next/link";
import { useEffect, useState } from "react";

export interface Section<K extends string> {
  key: K;
  label: string;
  /** A section that is a page of its own (the organization's billing): linked, never current here. */
  href?: string;
}

/**
 * Which of a page's sections shows, from the address's `#fragment` (so each has its own
 * address, Back works, and a link can point at one), else its `?section=` (a return from
 * another site, which keeps no fragment); the first when there is neither.
 */
export function useSection<K extends string>(keys: readonly K[]): K {
  const first = keys[0] as K;
  const read = () => {
    if (typeof window === "undefined") return first;
    const hash = decodeURIComponent(window.location.hash.slice(1));
    const asked = hash || new URLSearchParams(window.location.search).get("section") || "";
    return (keys as readonly string[]).includes(asked) ? (asked as K) : first;
  };
  // The exported HTML shows the first; the address's section after hydration.
  const [current, setCurrent] = useState<K>(first);
  useEffect(() => {
    const sync = () => setCurrent(read());
    sync();
    window.addEventListener("hashchange", sync);
    return () => window.removeEventListener("hashchange", sync);
  }, []);
  return current;
}

/** The sections' own navigation: links to `#key` (or a page's `href`), the current one marked for screen readers. */
export function SectionNav<K extends string>({ label, sections, current }: { label: string; sections: Section<K>[]; current: K }) {
  return (
    <nav aria-label={label} className="section-nav">
      <ul>
        {sections.map((section) => (
          <li key={section.key}>
            {section.href ? (
              <Link href={section.href}>{section.label}</Link>
            ) : (
              <a href={`#${section.key}`} aria-current={section.key === current ? "page" : undefined}>
                {section.label}
              </a>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}
