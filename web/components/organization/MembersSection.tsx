"use client";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { describe, settle } from "@/lib/errors";
import { useT } from "@/lib/i18n/organization";
import { ConfirmDialog } from "../ConfirmDialog";
import { FormAlert } from "../FormAlert";
import { changeMemberRole, refreshOrganizations } from "./hooks";
import { ConfirmOwner } from "./ConfirmOwner";
import { ROLE_OPTIONS, isOwnerRole, mayChange, roleLabel, type Abilities } from "./roles";
import type { FullOrganization, Member } from "./types";

/**
 * The members: name, email and role. Who may manage members changes a role with its select
 * (saved at once, undone if refused; making an owner, who gets every right, only after
 * confirming) and removes a member after confirming; an admin cannot touch an owner, and
 * nobody changes themselves here (they leave instead).
 */
export function MembersSection({ org, userId, abilities }: { org: FullOrganization; userId: string; abilities: Abilities }) {
  const t = useT();
  const [notice, setNotice] = useState<{ tone: "error" | "success"; text: string }>();
  const [saving, setSaving] = useState<string>();
  const [removing, setRemoving] = useState<Member>();
  const [promoting, setPromoting] = useState<Member>();
  const removingWho = removing?.user.name || removing?.user.email;
  const members = [...org.members].sort((a, b) => (a.userId === userId ? -1 : b.userId === userId ? 1 : (a.user.name || a.user.email).localeCompare(b.user.name || b.user.email)));

  async function changeRole(member: Member, role: string) {
    setSaving(member.id);
    setNotice(undefined);
    const refused = await changeMemberRole(userId, org.id, member.id, role);
    setSaving(undefined);
    const who = member.user.name || member.user.email;
    setNotice(
      refused
        ? { tone: "error", text: t("members.roleNotChanged", { who, reason: describe(refused) }) }
        : { tone: "success", text: t("members.roleChanged", { who, role, label: roleLabel(role).toLowerCase() }) },
    );
  }

  // Ownership is every right, deleting the organization included: asked for first. The select
  // keeps showing the member's role meanwhile (it shows the cached one).
  function chooseRole(member: Member, role: string) {
    if (isOwnerRole(role) && !isOwnerRole(member.role)) {
      setNotice(undefined);
      setPromoting(member);
    } else void changeRole(member, role);
  }

  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">{t("members.title")}</h2>
      <FormAlert message={notice?.text} tone={notice?.tone} />
      <div className="table-wrap table-wrap-auto">
        <table className="members-table">
          <caption className="visually-hidden">{t("members.caption", { organization: org.name })}</caption>
          <thead>
            <tr>
              <th scope="col">{t("members.member")}</th>
              <th scope="col">{t("members.role")}</th>
              {abilities.manage ? (
                <th scope="col">
                  <span className="visually-hidden">{t("members.actions")}</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {members.map((m) => {
              const changeable = mayChange(abilities, userId, m);
              const label = m.user.name || m.user.email;
              const known = ROLE_OPTIONS.some((o) => o.value === m.role);
              return (
                <tr key={m.id} data-testid="member-row">
                  <td className="member-cell">
                    <strong>{m.user.name || "—"}</strong>
                    {m.userId === userId ? <span className="badge">{t("members.you")}</span> : null}
                    <span className="muted member-email">{m.user.email}</span>
                  </td>
                  <td>
                    {changeable ? (
                      <select
                        aria-label={t("members.roleAria", { name: label })}
                        value={m.role}
                        disabled={saving === m.id}
                        aria-busy={saving === m.id || undefined}
                        onChange={(e) => chooseRole(m, e.target.value)}
                      >
                        {ROLE_OPTIONS.filter((o) => abilities.assignable.includes(o.value)).map((o) => (
                          <option key={o.value} value={o.value}>
                            {roleLabel(o.value)}
                          </option>
                        ))}
                        {known ? null : <option value={m.role}>{roleLabel(m.role)}</option>}
                      </select>
                    ) : (
                      <span data-testid="member-role">{roleLabel(m.role)}</span>
                    )}
                  </td>
                  {abilities.manage ? (
                    <td className="cell-actions">
                      {changeable ? (
                        <button type="button" className="button button-danger button-small" onClick={() => setRemoving(m)} aria-label={t("members.removeAria", { email: m.user.email })}>
                          {t("members.remove")}
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={removing !== undefined}
        title={removingWho ? t("members.removeTitle", { who: removingWho }) : t("members.removeTitleFallback")}
        confirmLabel={t("members.removeConfirm")}
        busyLabel={t("members.removing")}
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          if (!removing) return null;
          const { error } = await settle(authClient.organization.removeMember({ memberIdOrEmail: removing.id, organizationId: org.id }));
          if (error) return error;
          setNotice({ tone: "success", text: t("members.removed", { email: removing.user.email, organization: org.name }) });
          setRemoving(undefined);
          await refreshOrganizations();
          return null;
        }}
      >
        <p>{t("members.removeText", { email: removing?.user.email ?? "", organization: org.name })}</p>
      </ConfirmDialog>
      <ConfirmOwner
        member={promoting}
        organization={org.name}
        onClose={() => setPromoting(undefined)}
        onConfirm={async (member) => {
          const refused = await changeMemberRole(userId, org.id, member.id, "owner");
          if (refused) return refused;
          const who = member.user.name || member.user.email;
          setNotice({ tone: "success", text: t("members.roleChanged", { who, role: "owner", label: roleLabel("owner").toLowerCase() }) });
          setPromoting(undefined);
          return null;
        }}
      />
    </section>
  );
}
