"use client";
import { useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import { t, useT } from "@/lib/i18n/organization";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Dialog } from "../Dialog";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { SelectField } from "../SelectField";
import { ConfirmRemoveTeam } from "./ConfirmRemoveTeam";
import { refreshOrganizations, useTeamMembers } from "./hooks";
import type { Abilities } from "./roles";
import type { FullOrganization, Team } from "./types";

/**
 * The organization's teams. Everyone sees them; who manages the organization creates, renames
 * and removes teams (after confirming) and moves members in and out of them (in each team's
 * dialog).
 */
export function TeamsSection({ org, session, abilities }: { org: FullOrganization; session: SessionData; abilities: Abilities }) {
  const t = useT();
  const [openTeam, setOpenTeam] = useState<string>();
  const [removed, setRemoved] = useState<string>();
  const teams = [...(org.teams ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const activeTeamId = session.session.activeTeamId;
  const team = teams.find((item) => item.id === openTeam);

  return (
    <section className="card" aria-labelledby="teams-title">
      <h2 id="teams-title">{t("teams.title")}</h2>
      <FormAlert message={removed} tone="success" />
      {teams.length === 0 ? (
        <p className="empty">{t("teams.empty")}</p>
      ) : (
        <ul className="list">
          {teams.map((item) => (
            <li key={item.id} className="list-row" data-testid="team-row">
              <div>
                <strong>{item.name}</strong>
                {item.id === activeTeamId ? <span className="badge">{t("teams.activeBadge")}</span> : null}
              </div>
              <button
                type="button"
                className="button button-secondary"
                onClick={() => {
                  setRemoved(undefined);
                  setOpenTeam(item.id);
                }}
                aria-label={abilities.manage ? t("teams.manageAria", { name: item.name }) : t("teams.viewAria", { name: item.name })}
              >
                {abilities.manage ? t("teams.manage") : t("teams.view")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {abilities.manage ? <CreateTeamForm organizationId={org.id} /> : null}
      {team ? (
        <TeamDialog
          key={team.id}
          team={team}
          org={org}
          session={session}
          abilities={abilities}
          onClose={() => setOpenTeam(undefined)}
          onRemoved={() => {
            setOpenTeam(undefined);
            setRemoved(t("removeTeam.done", { name: team.name }));
          }}
        />
      ) : null}
    </section>
  );
}

const createChecks = { teamName: rules.required(() => t("teams.nameRequired")) };
const renameChecks = { teamName: rules.required(() => t("team.nameRequired")) };

function CreateTeamForm({ organizationId }: { organizationId: string }) {
  const t = useT();
  const form = useForm({ teamName: "" }, createChecks);
  const submit = form.onSubmit(
    () => authClient.organization.createTeam({ name: form.values.teamName.trim(), organizationId }),
    async (team) => {
      form.reset();
      form.setNotice({ tone: "success", text: t("teams.created", { name: team?.name ?? "" }) });
      await refreshOrganizations();
    },
  );
  return (
    <form method="post" className="form dialog-section" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="create-team-title">
      <h3 id="create-team-title">{t("teams.createTitle")}</h3>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <div className="form-row form-row-submit">
        <Field label={t("teams.name")} autoComplete="off" required {...form.field("teamName")} onBlur={undefined} />
        <Button type="submit" busy={form.busy} busyLabel={t("teams.creating")}>
          {t("teams.create")}
        </Button>
      </div>
    </form>
  );
}

function TeamDialog({
  team,
  org,
  session,
  abilities,
  onClose,
  onRemoved,
}: {
  team: Team;
  org: FullOrganization;
  session: SessionData;
  abilities: Abilities;
  onClose: () => void;
  onRemoved: () => void;
}) {
  const t = useT();
  const userId = session.user.id;
  const { data: inTeam, error, isLoading, mutate } = useTeamMembers(userId, org.id, team.id, org.members, abilities.manage);
  const [adding, setAdding] = useState("");
  const [busy, setBusy] = useState<string>();
  const [notice, setNotice] = useState<{ tone: "error" | "success"; text: string }>();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const rename = useForm({ teamName: team.name }, renameChecks);
  const isActive = session.session.activeTeamId === team.id;

  const teamMembers = org.members.filter((m) => inTeam?.includes(m.userId));
  const others = org.members.filter((m) => !inTeam?.includes(m.userId));
  const nameOf = (uid: string) => {
    const m = org.members.find((x) => x.userId === uid);
    return m ? m.user.name || m.user.email : t("team.formerMember");
  };

  async function run(key: string, call: () => Promise<{ error: ApiError | null }>, done: string) {
    setBusy(key);
    setNotice(undefined);
    const { error } = await call();
    setBusy(undefined);
    if (error) {
      setNotice({ tone: "error", text: describe(error) });
      return false;
    }
    setNotice({ tone: "success", text: done });
    await mutate();
    return true;
  }

  const add = async () => {
    if (!adding) return;
    const name = nameOf(adding);
    if (await run("add", () => settle(authClient.organization.addTeamMember({ teamId: team.id, userId: adding, organizationId: org.id })), t("team.joined", { name, team: team.name }))) {
      setAdding("");
    }
  };

  const submitRename = rename.onSubmit(
    () => authClient.organization.updateTeam({ teamId: team.id, data: { name: rename.values.teamName.trim(), organizationId: org.id } }),
    async () => {
      rename.setNotice({ tone: "success", text: t("team.renamed") });
      await refreshOrganizations();
    },
  );

  return (
    <>
      <Dialog open title={t("team.dialogTitle", { name: team.name })} onClose={onClose}>
        <section className="dialog-section" aria-labelledby="team-members-title">
          <h3 id="team-members-title">{t("team.members")}</h3>
          <FormAlert message={notice?.text} tone={notice?.tone} />
          {error ? (
            error.code === "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" ? (
              <p className="muted">{t("team.membersHidden")}</p>
            ) : (
              <LoadError message={t("team.loadFailed")} error={error} retry={mutate} />
            )
          ) : isLoading ? (
            <ul className="list" aria-label={t("team.loadingAria")}>
              <li className="skeleton-row" />
            </ul>
          ) : teamMembers.length === 0 ? (
            <p className="empty">{t("team.empty")}</p>
          ) : (
            <ul className="list" aria-label={t("team.membersAria", { name: team.name })}>
              {teamMembers.map((m) => (
                <li key={m.userId} className="list-row" data-testid="team-member-row">
                  <div>
                    <strong>{m.user.name || m.user.email}</strong>
                    <p className="muted break">{m.user.email}</p>
                  </div>
                  {abilities.manage ? (
                    <Button
                      tone="secondary"
                      busy={busy === `remove-${m.userId}`}
                      busyLabel={t("team.removingMember")}
                      aria-label={t("team.removeMemberAria", { email: m.user.email })}
                      onClick={() =>
                        void run(
                          `remove-${m.userId}`,
                          () => settle(authClient.organization.removeTeamMember({ teamId: team.id, userId: m.userId, organizationId: org.id })),
                          t("team.left", { name: m.user.name || m.user.email, team: team.name }),
                        )
                      }
                    >
                      {t("team.removeMember")}
                    </Button>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          {abilities.manage && inTeam ? (
            others.length === 0 ? (
              <p className="muted">{t("team.everyone")}</p>
            ) : (
              <form
                className="form-row form-row-submit"
                onSubmit={(e) => {
                  e.preventDefault();
                  void add();
                }}
              >
                <SelectField label={t("team.addLabel")} value={adding} onChange={(e) => setAdding(e.target.value)}>
                  <option value="">{t("team.choose")}</option>
                  {others.map((m) => (
                    <option key={m.userId} value={m.userId}>
                      {m.user.name ? `${m.user.name} (${m.user.email})` : m.user.email}
                    </option>
                  ))}
                </SelectField>
                <Button type="submit" tone="secondary" busy={busy === "add"} busyLabel={t("team.adding")} disabled={!adding}>
                  {t("team.add")}
                </Button>
              </form>
            )
          ) : null}
        </section>

        {abilities.manage ? (
          <>
            <form method="post" className="form dialog-section" onSubmit={(e) => void submitRename(e)} noValidate aria-label={t("team.renameAria")}>
              <FormAlert message={rename.notice?.text} tone={rename.notice?.tone} />
              <div className="form-row form-row-submit">
                <Field label={t("team.name")} autoComplete="off" required {...rename.field("teamName")} onBlur={undefined} />
                <Button type="submit" tone="secondary" busy={rename.busy} busyLabel={t("team.renaming")}>
                  {t("team.rename")}
                </Button>
              </div>
            </form>
            <section className="dialog-section" aria-label={t("team.removeAria")}>
              <Button tone="danger" busy={false} onClick={() => setConfirmRemove(true)}>
                {t("team.remove")}
              </Button>
            </section>
          </>
        ) : null}
      </Dialog>
      {abilities.manage ? (
        <ConfirmRemoveTeam
          open={confirmRemove}
          team={team}
          organizationId={org.id}
          organization={org.name}
          isActive={isActive}
          onClose={() => setConfirmRemove(false)}
          onRemoved={onRemoved}
        />
      ) : null}
    </>
  );
}
