"use client";
import useSWR from "swr";

/** The operator's brand (the gateway's `BRAND_*`, served as `/brand.json`). */
export interface Brand {
  name: string;
  logoUrl?: string;
}

const DEFAULT_BRAND: Brand = { name: "Gatehouse" };

async function fetchBrand(): Promise<Brand> {
  const response = await fetch("/brand.json");
  if (!response.ok) throw new Error(`brand: ${response.status}`);
  return (await response.json()) as Brand;
}

/**
 * The product's name and logo, read once per visit; the default until it arrives, and if it
 * cannot be read (a dev server, an older gateway): the pages stay usable either way.
 */
export function useBrand(): Brand {
  const { data } = useSWR("app/brand", fetchBrand, {
    revalidateOnFocus: false,
    revalidateOnReconnect: false,
    shouldRetryOnError: false,
  });
  return data ?? DEFAULT_BRAND;
}
