"use client";
import { useEffect, useState } from "react";

/**
 * A query parameter of the page's address. Pages are static files, so it is read once the
 * app runs: `undefined` until then, `null` when absent.
 */
export function useQueryParam(name: string): string | null | undefined {
  const [value, setValue] = useState<string | null | undefined>(undefined);
  useEffect(() => setValue(new URLSearchParams(window.location.search).get(name)), [name]);
  return value;
}
