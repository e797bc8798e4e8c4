import { vi } from "vitest";

/**
 * The better-auth client's methods as spies. Forms get `{ data, error }` exactly as the real
 * client hands them over, so the tests exercise the forms' own validation and error mapping.
 */
export const client = {
  signIn: { email: vi.fn(), username: vi.fn() },
  signUp: { email: vi.fn() },
  changePassword: vi.fn(),
  updateUser: vi.fn(),
  requestPasswordReset: vi.fn(),
  resetPassword: vi.fn(),
  sendVerificationEmail: vi.fn(),
};

export const ok = (data: unknown = {}) => Promise.resolve({ data, error: null });
export const refused = (status: number, code: string, message: string) =>
  Promise.resolve({ data: null, error: { status, statusText: "", code, message } });
