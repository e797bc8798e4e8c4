import { vi } from "vitest";

/**
 * The better-auth client's methods as spies. Forms get `{ data, error }` exactly as the real
 * client hands them over, so the tests exercise the forms' own validation and error mapping.
 */
export const client = {
  signIn: { email: vi.fn(), username: vi.fn(), social: vi.fn() },
  $fetch: vi.fn(),
  listAccounts: vi.fn(),
  unlinkAccount: vi.fn(),
  linkSocial: vi.fn(),
  signUp: { email: vi.fn() },
  changePassword: vi.fn(),
  updateUser: vi.fn(),
  requestPasswordReset: vi.fn(),
  resetPassword: vi.fn(),
  sendVerificationEmail: vi.fn(),
  signOut: vi.fn(),
  getSession: vi.fn(),
  twoFactor: {
    enable: vi.fn(),
    disable: vi.fn(),
    generateBackupCodes: vi.fn(),
    verifyTotp: vi.fn(),
    sendOtp: vi.fn(),
    verifyOtp: vi.fn(),
    verifyBackupCode: vi.fn(),
  },
  apiKey: { create: vi.fn(), list: vi.fn(), update: vi.fn(), delete: vi.fn() },
  admin: {
    listUsers: vi.fn(),
    setRole: vi.fn(),
    banUser: vi.fn(),
    unbanUser: vi.fn(),
    revokeUserSessions: vi.fn(),
    impersonateUser: vi.fn(),
    removeUser: vi.fn(),
  },
  organization: {
    create: vi.fn(),
    checkSlug: vi.fn(),
    list: vi.fn(),
    setActive: vi.fn(),
    getFullOrganization: vi.fn(),
    getActiveMemberRole: vi.fn(),
    update: vi.fn(),
    delete: vi.fn(),
    leave: vi.fn(),
    inviteMember: vi.fn(),
    cancelInvitation: vi.fn(),
    getInvitation: vi.fn(),
    acceptInvitation: vi.fn(),
    rejectInvitation: vi.fn(),
    updateMemberRole: vi.fn(),
    removeMember: vi.fn(),
    createTeam: vi.fn(),
    updateTeam: vi.fn(),
    removeTeam: vi.fn(),
    setActiveTeam: vi.fn(),
    listUserTeams: vi.fn(),
    listTeamMembers: vi.fn(),
    addTeamMember: vi.fn(),
    removeTeamMember: vi.fn(),
  },
};

export const ok = (data: unknown = {}) => Promise.resolve({ data, error: null });
export const refused = (status: number, code: string, message: string) =>
  Promise.resolve({ data: null, error: { status, statusText: "", code, message } });
