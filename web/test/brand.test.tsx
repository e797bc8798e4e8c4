import { screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/navigation", () => ({ useRouter: () => ({ push: vi.fn() }), usePathname: () => "/sign-in/" }));
vi.mock("next/link", () => ({
  default: ({ href, children, className }: { href: string; children: React.ReactNode; className?: string }) => (
    <a href={href} className={className}>
      {children}
    </a>
  ),
}));

const { AppShell } = await import("@/components/AppShell");

describe("the operator's brand", () => {
  beforeEach(() => {
    vi.resetAllMocks();
    client.getSession.mockReturnValue(ok(null));
  });
  afterEach(() => vi.unstubAllGlobals());

  it("names the product and shows its logo in the header and the page titles", async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ name: "Acme Accounts", logoUrl: "/acme.svg" })));
    vi.stubGlobal("fetch", fetch);
    renderFresh(<AppShell>page</AppShell>);
    const home = await screen.findByRole("link", { name: "Acme Accounts" });
    expect(home).toHaveAttribute("href", "/");
    expect(home.querySelector("img")).toHaveAttribute("src", "/acme.svg");
    expect(home.querySelector("img")).toHaveAttribute("alt", "");
    await waitFor(() => expect(document.title).toBe("Sign in · Acme Accounts"));
    expect(fetch).toHaveBeenCalledWith("/brand.json");
  });

  it("stays Gatehouse when the brand cannot be read", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("", { status: 404 })));
    renderFresh(<AppShell>page</AppShell>);
    expect(screen.getByRole("link", { name: "Gatehouse" })).toBeVisible();
    await waitFor(() => expect(document.title).toBe("Sign in · Gatehouse"));
  });
});
