"use client";
import { useState } from "react";

/** Up to two initials: "Ada Lovelace" → "AL", "ada@example.com" → "A". */
export function initials(name: string, email: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 0 ? words.slice(0, 2).map((w) => [...w][0] ?? "") : [[...email][0] ?? "?"];
  return letters.join("").toLocaleUpperCase();
}

/**
 * The user's picture (their saved image), else their initials. Decorative: whatever shows it
 * names the user in text too.
 */
export function Avatar({ name, email, image, size = 32 }: { name: string; email: string; image?: string | null | undefined; size?: number }) {
  // A picture that does not load (moved, blocked) falls back to the initials.
  const [broken, setBroken] = useState<string>();
  const style = { width: size, height: size, fontSize: size * 0.42 };
  if (image && broken !== image && /^https?:\/\//.test(image)) {
    return <img className="avatar" src={image} alt="" style={style} onError={() => setBroken(image)} />;
  }
  return (
    <span className="avatar avatar-initials" aria-hidden="true" style={style}>
      {initials(name, email)}
    </span>
  );
}
