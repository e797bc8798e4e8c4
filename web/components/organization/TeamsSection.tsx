"use client";
import { useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { describe, settle, type ApiError } from "@/lib/errors";
import * as rules from "@/lib/rules";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Dialog } from "../Dialog";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { SelectField } from "../SelectField";
import { refreshOrganizations, refreshSessionAndOrganizations, useTeamMembers } from "./hooks";
import type { Abilities } from "./roles";
import type { FullOrganization, Team } from "./types";

/**
 * The organization's teams. Everyone sees them; who manages the organization creates, renames
 * and removes teams and moves members in and out of them (in each team's dialog).
 */
export function TeamsSection({ org, session, abilities }: { org: FullOrganization; session: SessionData; abilities: Abilities }) {
  const [openTeam, setOpenTeam] = useState<string>();
  const teams = [...(org.teams ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const activeTeamId = session.session.activeTeamId;
  const team = teams.find((t) => t.id === openTeam);

  return (
    <section className="card" aria-labelledby="teams-title">
      <h2 id="teams-title">Teams</h2>
      {teams.length === 0 ? (
        <p className="empty">No teams yet.</p>
      ) : (
        <ul className="list">
          {teams.map((t) => (
            <li key={t.id} className="list-row" data-testid="team-row">
              <div>
                <strong>{t.name}</strong>
                {t.id === activeTeamId ? <span className="badge">Your active team</span> : null}
              </div>
              <button type="button" className="button button-secondary" onClick={() => setOpenTeam(t.id)} aria-label={`${abilities.manage ? "Manage" : "View"} team ${t.name}`}>
                {abilities.manage ? "Manage" : "View"}
              </button>
            </li>
          ))}
        </ul>
      )}
      {abilities.manage ? <CreateTeamForm organizationId={org.id} /> : null}
      {team ? (
        <TeamDialog key={team.id} team={team} org={org} session={session} abilities={abilities} onClose={() => setOpenTeam(undefined)} />
      ) : null}
    </section>
  );
}

function CreateTeamForm({ organizationId }: { organizationId: string }) {
  const form = useForm({ teamName: "" }, { teamName: rules.required("a team name") });
  const submit = form.onSubmit(
    () => authClient.organization.createTeam({ name: form.values.teamName.trim(), organizationId }),
    async (team) => {
      form.reset();
      form.setNotice({ tone: "success", text: `Team ${team?.name ?? ""} created.` });
      await refreshOrganizations();
    },
  );
  return (
    <form method="post" className="form dialog-section" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="create-team-title">
      <h3 id="create-team-title">Create a team</h3>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <div className="form-row form-row-submit">
        <Field label="Team name" autoComplete="off" required {...form.field("teamName")} onBlur={undefined} />
        <Button type="submit" busy={form.busy} busyLabel="Creating…">
          Create team
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
}: {
  team: Team;
  org: FullOrganization;
  session: SessionData;
  abilities: Abilities;
  onClose: () => void;
}) {
  const userId = session.user.id;
  const { data: inTeam, error, isLoading, mutate } = useTeamMembers(userId, org.id, team.id, org.members, abilities.manage);
  const [adding, setAdding] = useState("");
  const [busy, setBusy] = useState<string>();
  const [notice, setNotice] = useState<{ tone: "error" | "success"; text: string }>();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const rename = useForm({ teamName: team.name }, { teamName: rules.required("a team name") });
  const isActive = session.session.activeTeamId === team.id;

  const teamMembers = org.members.filter((m) => inTeam?.includes(m.userId));
  const others = org.members.filter((m) => !inTeam?.includes(m.userId));
  const nameOf = (uid: string) => {
    const m = org.members.find((x) => x.userId === uid);
    return m ? m.user.name || m.user.email : "A former member";
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
    if (await run("add", () => settle(authClient.organization.addTeamMember({ teamId: team.id, userId: adding, organizationId: org.id })), `${name} joined ${team.name}.`)) {
      setAdding("");
    }
  };

  const submitRename = rename.onSubmit(
    () => authClient.organization.updateTeam({ teamId: team.id, data: { name: rename.values.teamName.trim(), organizationId: org.id } }),
    async () => {
      rename.setNotice({ tone: "success", text: "Team renamed." });
      await refreshOrganizations();
    },
  );

  async function remove(): Promise<ApiError | null> {
    // The server keeps a session's active team from being removed under it: stop it being
    // active first (the dialog said so).
    if (isActive) {
      const { error } = await settle(authClient.organization.setActiveTeam({ teamId: null }));
      if (error) return error;
    }
    const { error } = await settle(authClient.organization.removeTeam({ teamId: team.id, organizationId: org.id }));
    if (isActive) await refreshSessionAndOrganizations();
    if (error) return error;
    onClose();
    await refreshOrganizations();
    return null;
  }

  return (
    <Dialog open title={`Team ${team.name}`} onClose={onClose}>
      <section className="dialog-section" aria-labelledby="team-members-title">
        <h3 id="team-members-title">Members</h3>
        <FormAlert message={notice?.text} tone={notice?.tone} />
        {error ? (
          error.code === "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" ? (
            <p className="muted">Only the team&apos;s own members can see who is in it.</p>
          ) : (
            <LoadError what="the team" error={error} retry={mutate} />
          )
        ) : isLoading ? (
          <ul className="list" aria-label="Loading the team's members">
            <li className="skeleton-row" />
          </ul>
        ) : teamMembers.length === 0 ? (
          <p className="empty">Nobody is in this team yet.</p>
        ) : (
          <ul className="list" aria-label={`Members of ${team.name}`}>
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
                    busyLabel="Removing…"
                    aria-label={`Remove ${m.user.email} from the team`}
                    onClick={() =>
                      void run(
                        `remove-${m.userId}`,
                        () => settle(authClient.organization.removeTeamMember({ teamId: team.id, userId: m.userId, organizationId: org.id })),
                        `${m.user.name || m.user.email} left ${team.name}.`,
                      )
                    }
                  >
                    Remove
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
        {abilities.manage && inTeam ? (
          others.length === 0 ? (
            <p className="muted">Every member of the organization is in this team.</p>
          ) : (
            <form
              className="form-row form-row-submit"
              onSubmit={(e) => {
                e.preventDefault();
                void add();
              }}
            >
              <SelectField label="Add a member" value={adding} onChange={(e) => setAdding(e.target.value)}>
                <option value="">Choose a member…</option>
                {others.map((m) => (
                  <option key={m.userId} value={m.userId}>
                    {m.user.name ? `${m.user.name} (${m.user.email})` : m.user.email}
                  </option>
                ))}
              </SelectField>
              <Button type="submit" tone="secondary" busy={busy === "add"} busyLabel="Adding…" disabled={!adding}>
                Add to team
              </Button>
            </form>
          )
        ) : null}
      </section>

      {abilities.manage ? (
        <>
          <form method="post" className="form dialog-section" onSubmit={(e) => void submitRename(e)} noValidate aria-label="Rename team">
            <FormAlert message={rename.notice?.text} tone={rename.notice?.tone} />
            <div className="form-row form-row-submit">
              <Field label="Team name" autoComplete="off" required {...rename.field("teamName")} onBlur={undefined} />
              <Button type="submit" tone="secondary" busy={rename.busy} busyLabel="Saving…">
                Rename team
              </Button>
            </div>
          </form>
          <section className="dialog-section" aria-label="Remove team">
            {confirmRemove ? (
              <RemoveTeam name={team.name} isActive={isActive} onConfirm={remove} onCancel={() => setConfirmRemove(false)} />
            ) : (
              <Button tone="danger" busy={false} onClick={() => setConfirmRemove(true)}>
                Remove team…
              </Button>
            )}
          </section>
        </>
      ) : null}
    </Dialog>
  );
}

function RemoveTeam({ name, isActive, onConfirm, onCancel }: { name: string; isActive: boolean; onConfirm: () => Promise<ApiError | null>; onCancel: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <div className="form">
      <p>
        The team goes; its members stay in the organization.
        {isActive ? " It is your active team: it stops being active." : ""}
      </p>
      <FormAlert message={error} />
      <div className="actions">
        <Button
          tone="danger"
          busy={busy}
          busyLabel="Removing…"
          onClick={() =>
            void (async () => {
              setBusy(true);
              setError(undefined);
              const refused = await onConfirm();
              setBusy(false);
              if (refused) setError(describe(refused));
            })()
          }
        >
          Yes, remove {name}
        </Button>
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Keep it
        </button>
      </div>
    </div>
  );
}
