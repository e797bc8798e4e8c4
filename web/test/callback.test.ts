import { describe, expect, it } from "vitest";
import { safeCallback, signInPath } from "@/lib/callback";

describe("safeCallback", () => {
  it.each([
    ["/account/", "/account/"],
    ["/admin/?page=2#top", "/admin/?page=2#top"],
    ["/a/../account/", "/account/"],
    ["https://evil.example/", "/"],
    ["//evil.example/", "/"],
    ["/\\evil.example", "/"],
    ["/.//evil.example", "/"],
    ["/%2e//evil.example", "/"],
    ["/a/..//evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["/ok\nLocation: x", "/"],
    [null, "/"],
  ])("%s → %s", (raw, expected) => {
    expect(safeCallback(raw)).toBe(expected);
  });

  it("builds sign-in links that come back", () => {
    expect(signInPath("/account/")).toBe("/sign-in/?callbackURL=%2Faccount%2F");
    expect(signInPath("/")).toBe("/sign-in/");
  });
});
