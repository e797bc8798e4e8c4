"use client";
import { useState } from "react";

/** A logo, or the name's first letter in its place. */
export function OrganizationLogo({ name, logo, size = "large" }: { name: string; logo?: string | null | undefined; size?: "large" | "small" }) {
  // The address that failed to load (a new one gets its chance).
  const [broken, setBroken] = useState<string>();
  const className = `org-avatar org-avatar-${size}`;
  if (logo && logo !== broken) {
    // A plain <img>: the export has no image optimiser, and the address is the organization's own.
    return <img className={className} src={logo} alt="" onError={() => setBroken(logo)} />;
  }
  return (
    <span className={className} aria-hidden="true">
      {(name.trim()[0] ?? "?").toUpperCase()}
    </span>
  );
}
