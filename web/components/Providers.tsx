"use client";
import type { ReactNode } from "react";
import { SWRConfig } from "swr";

/** SWR for every read: cached, revalidated when the tab regains focus or the network returns. */
export function Providers({ children }: { children: ReactNode }) {
  return (
    <SWRConfig value={{ revalidateOnFocus: true, revalidateOnReconnect: true, dedupingInterval: 2000 }}>
      {children}
    </SWRConfig>
  );
}
