import type { NextConfig } from "next";

// A static export: the gateway serves `out/` at `/`, on the same origin as `/api/auth`, so the
// session cookie needs no CORS. `trailingSlash` makes every route a folder with an index.html,
// which a plain static file server answers on refresh (deep links) without rewrites.
const config: NextConfig = {
  output: "export",
  trailingSlash: true,
  reactStrictMode: true,
  images: { unoptimized: true },
  poweredByHeader: false,
};

export default config;
