import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { AppShell } from "@/components/AppShell";
import { Providers } from "@/components/Providers";

export const metadata: Metadata = {
  title: "Gatehouse",
  description: "Your account, sessions and organizations.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        {/* One stylesheet shared with the gateway's own pages (/api/auth/error). */}
        <link rel="stylesheet" href="/theme.css" />
        {/* The operator's accent colour (BRAND_ACCENT), served by the gateway: no rebuild. */}
        <link rel="stylesheet" href="/brand.css" />
      </head>
      <body>
        <noscript>
          {/* Without JavaScript the forms cannot work: hide them rather than let them submit. */}
          <style>{"#main, .nav { display: none; }"}</style>
          <p className="noscript">Gatehouse needs JavaScript to sign you in and manage your account. Please enable it and reload.</p>
        </noscript>
        <Providers>
          <AppShell>{children}</AppShell>
        </Providers>
      </body>
    </html>
  );
}
