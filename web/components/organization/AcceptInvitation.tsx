"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { safeCallback, signInPath, withCallback } from "@/lib/callback";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { resetCache, useSession } from "@/lib/session";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { LoadError } from "../LoadError";
import { refreshSessionAndOrganizations, useInvitation } from "./hooks";
import { roleLabel } from "./roles";

const PAGE = "accept-invitation";

/**
 * The invitation's id, from the mailed address `/accept-invitation/<id>` (the gateway serves
 * this page for it) or `?id=`. Read after mount: the page is one static file for every id.
 */
export function invitationIdFrom(location: { pathname: string; search: string }): string | null {
  const segments = location.pathname.split("/").filter(Boolean);
  const last = segments[segments.length - 1];
  if (last && last !== PAGE && segments.includes(PAGE)) return decodeURIComponent(last);
  return new URLSearchParams(location.search).get("id") || null;
}

/**
 * The mailed link's `?token=`: it proves the invitee's address, so an unverified invitee may
 * answer (and is verified by it). Kept through sign-in: the way back is this whole address.
 */
export function invitationTokenFrom(location: { search: string }): string | null {
  return new URLSearchParams(location.search).get("token") || null;
}

/** The invitee's page: sign in first if needed (coming back here), then accept or decline. */
export function AcceptInvitation() {
  const { data: session, error, isLoading, mutate } = useSession();
  const [id, setId] = useState<string | null>();
  const [token, setToken] = useState<string | null>(null);
  const [here, setHere] = useState("/");
  useEffect(() => {
    setId(invitationIdFrom(window.location));
    setToken(invitationTokenFrom(window.location));
    setHere(safeCallback(window.location.pathname + window.location.search));
  }, []);

  if (error) {
    return (
      <section className="card" aria-labelledby="invite-title">
        <h1 id="invite-title">Invitation</h1>
        <LoadError what="your session" error={error} retry={mutate} />
      </section>
    );
  }
  if (isLoading || id === undefined) {
    return (
      <div className="card skeleton invitation-card" aria-busy="true">
        <span className="visually-hidden">Loading…</span>
      </div>
    );
  }
  if (id === null) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">Invitation</h1>
        <p role="alert" className="alert alert-error">
          This link is incomplete: it names no invitation. Open the link from the mail again, or ask for a new invitation.
        </p>
        <Link href="/">Go home</Link>
      </section>
    );
  }
  if (!session) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">You are invited to an organization</h1>
        <p>
          Sign in with the email address the invitation was sent to, or create an account with it. You come back to this
          page to accept it.
        </p>
        <div className="actions">
          <Link className="button button-primary" href={signInPath(here)}>
            Sign in
          </Link>
          <Link className="button button-secondary" href={withCallback("/sign-up/", here)}>
            Create account
          </Link>
        </div>
      </section>
    );
  }
  return <Invitation key={`${session.user.id}-${id}`} id={id} token={token} session={session} here={here} />;
}

function Invitation({ id, token, session, here }: { id: string; token: string | null; session: SessionData; here: string }) {
  const router = useRouter();
  // The token rides along as an extra field, which the official client passes through.
  const answer = token ? { invitationId: id, token } : { invitationId: id };
  const { data, error, isLoading, mutate } = useInvitation(session.user.id, id, token);
  const [busy, setBusy] = useState<"accept" | "reject" | "sign-out">();
  const [failure, setFailure] = useState<ApiError>();
  const [declined, setDeclined] = useState(false);

  async function accept() {
    setBusy("accept");
    setFailure(undefined);
    const { error } = await settle(authClient.organization.acceptInvitation(answer));
    if (error) {
      setBusy(undefined);
      setFailure(error);
      return;
    }
    // Accepting made it the active organization (and the link may have verified the address).
    await refreshSessionAndOrganizations();
    router.push("/organization/");
  }

  async function reject() {
    setBusy("reject");
    setFailure(undefined);
    const { error } = await settle(authClient.organization.rejectInvitation(answer));
    setBusy(undefined);
    if (error) {
      setFailure(error);
      return;
    }
    setDeclined(true);
  }

  async function switchAccount() {
    setBusy("sign-out");
    await settle(authClient.signOut());
    await resetCache();
    router.push(signInPath(here));
  }

  const problem = failure ?? error;
  if (declined) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">Invitation rejected</h1>
        <p role="status">You rejected the invitation{data ? ` to ${data.organizationName}` : ""}. Nothing else changed.</p>
        <Link href="/">Go home</Link>
      </section>
    );
  }
  if (isLoading) {
    return (
      <div className="card skeleton invitation-card" aria-busy="true">
        <span className="visually-hidden">Loading the invitation…</span>
      </div>
    );
  }
  if (!data || (error && !failure)) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">This invitation cannot be used</h1>
        <InvitationProblem error={problem} email={session.user.email} />
        <div className="actions">
          {problem?.code === "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" ? (
            <Button busy={busy === "sign-out"} busyLabel="Signing out…" onClick={() => void switchAccount()}>
              Sign in with another account
            </Button>
          ) : null}
          {problem && problem.status >= 500 ? (
            <button type="button" className="button button-secondary" onClick={() => void mutate()}>
              Try again
            </button>
          ) : null}
          <Link className="button button-secondary" href="/">
            Go home
          </Link>
        </div>
      </section>
    );
  }
  return (
    <section className="card invitation-card" aria-labelledby="invite-title">
      <h1 id="invite-title">Join {data.organizationName}</h1>
      <dl className="facts">
        <dt>Organization</dt>
        <dd>{data.organizationName}</dd>
        <dt>Invited by</dt>
        <dd className="break">{data.inviterEmail}</dd>
        <dt>Your role</dt>
        <dd>{roleLabel(data.role)}</dd>
        <dt>Sent to</dt>
        <dd className="break">{data.email}</dd>
        <dt>Expires</dt>
        <dd>{formatDate(data.expiresAt)}</dd>
      </dl>
      {failure ? <InvitationProblem error={failure} email={session.user.email} /> : null}
      <div className="actions">
        <Button busy={busy === "accept"} busyLabel="Joining…" disabled={busy !== undefined} onClick={() => void accept()}>
          Accept invitation
        </Button>
        <Button tone="secondary" busy={busy === "reject"} busyLabel="Rejecting…" disabled={busy !== undefined} onClick={() => void reject()}>
          Reject invitation
        </Button>
      </div>
    </section>
  );
}

function InvitationProblem({ error, email }: { error: ApiError | undefined; email: string }) {
  if (!error) return null;
  const text =
    error.code === "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"
      ? `This invitation was sent to another email address, and you are signed in as ${email}. Sign in with the invited address to accept it.`
      : error.code === "INVITATION_NOT_FOUND" || error.status === 404 || /invitation not found/i.test(error.message ?? "")
        ? "This invitation was not found: it expired, was cancelled, or was already answered. Ask for a new one if you still want to join."
        : describe(error);
  return <FormAlert message={text} />;
}
