import { describe, expect, it } from "vitest";
import { describe as say, mapError } from "@/lib/errors";

describe("mapError", () => {
  it("chooses the first field the form has, else the top of the form", () => {
    const error = { status: 400, code: "PASSWORD_TOO_SHORT", message: "Password too short" };
    expect(mapError(error, ["currentPassword", "newPassword"] as const)).toEqual({ fields: { newPassword: "This password is too short." } });
    expect(mapError(error, ["email"] as const)).toEqual({ fields: {}, form: "This password is too short." });
  });

  it("keeps the server's words for permissions and unknown codes", () => {
    expect(say({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS", message: "You are not allowed to ban users" })).toBe(
      "You are not allowed to ban users.",
    );
    expect(say({ status: 400, code: "SOMETHING_NEW", message: "A new rule" })).toBe("A new rule");
    expect(say({ status: 502, message: "Bad Gateway" })).toBe("Something went wrong on our side. Please try again.");
  });

  it("says that only a super-admin acts on another admin", () => {
    expect(say({ status: 403, code: "YOU_CANNOT_BAN_ADMINS", message: "You cannot ban or unban an admin" })).toBe(
      "Only a super-admin can ban or unban another admin.",
    );
    expect(say({ status: 403, code: "YOU_CANNOT_REVOKE_ADMINS_SESSIONS", message: "x" })).toBe("Only a super-admin can sign another admin out.");
  });
});
