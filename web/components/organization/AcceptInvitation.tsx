"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { authClient, type SessionData } from "@/lib/auth-client";
import { safeCallback, signInPath, withCallback } from "@/lib/callback";
import { describe, settle, type ApiError } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useT } from "@/lib/i18n/organization";
import * as rules from "@/lib/rules";
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

/**
 * The invited address, when the page's address names it (`?email=`): the sign-up page it
 * links to then fills it in. Only a well-formed address counts.
 */
export function invitedEmailFrom(location: { search: string }): string | null {
  const email = new URLSearchParams(location.search).get("email")?.trim();
  return email && rules.email(email) === undefined ? email : null;
}

/** `href` with the invited address added (`email=`), when there is one. */
function withEmail(href: string, email: string | null): string {
  return email ? `${href}${href.includes("?") ? "&" : "?"}email=${encodeURIComponent(email)}` : href;
}

/** The invitee's page: sign in first if needed (coming back here), then accept or decline. */
export function AcceptInvitation() {
  const t = useT();
  const { data: session, error, isLoading, mutate } = useSession();
  const [id, setId] = useState<string | null>();
  const [token, setToken] = useState<string | null>(null);
  const [email, setEmail] = useState<string | null>(null);
  const [here, setHere] = useState("/");
  useEffect(() => {
    setId(invitationIdFrom(window.location));
    setToken(invitationTokenFrom(window.location));
    setEmail(invitedEmailFrom(window.location));
    setHere(safeCallback(window.location.pathname + window.location.search));
  }, []);

  if (error) {
    return (
      <section className="card" aria-labelledby="invite-title">
        <h1 id="invite-title">{t("accept.title")}</h1>
        <LoadError message={t("accept.sessionLoadFailed")} error={error} retry={mutate} />
      </section>
    );
  }
  if (isLoading || id === undefined) {
    return (
      <div className="card skeleton invitation-card" aria-busy="true">
        <span className="visually-hidden">{t("accept.loading")}</span>
      </div>
    );
  }
  if (id === null) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">{t("accept.title")}</h1>
        <p role="alert" className="alert alert-error">
          {t("accept.incomplete")}
        </p>
        <Link href="/">{t("accept.goHome")}</Link>
      </section>
    );
  }
  if (!session) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">{t("accept.signInTitle")}</h1>
        <p>{t("accept.signInText")}</p>
        <div className="actions">
          <Link className="button button-primary" href={withEmail(signInPath(here), email)}>
            {t("accept.signIn")}
          </Link>
          <Link className="button button-secondary" href={withEmail(withCallback("/sign-up/", here), email)}>
            {t("accept.createAccount")}
          </Link>
        </div>
      </section>
    );
  }
  return <Invitation key={`${session.user.id}-${id}`} id={id} token={token} session={session} here={here} />;
}

function Invitation({ id, token, session, here }: { id: string; token: string | null; session: SessionData; here: string }) {
  const t = useT();
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
        <h1 id="invite-title">{t("accept.rejectedTitle")}</h1>
        <p role="status">{data ? t("accept.rejectedTextTo", { organization: data.organizationName }) : t("accept.rejectedText")}</p>
        <Link href="/">{t("accept.goHome")}</Link>
      </section>
    );
  }
  if (isLoading) {
    return (
      <div className="card skeleton invitation-card" aria-busy="true">
        <span className="visually-hidden">{t("accept.loadingInvitation")}</span>
      </div>
    );
  }
  if (!data || (error && !failure)) {
    return (
      <section className="card invitation-card" aria-labelledby="invite-title">
        <h1 id="invite-title">{t("accept.unusableTitle")}</h1>
        <InvitationProblem error={problem} email={session.user.email} />
        <div className="actions">
          {problem?.code === "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" ? (
            <Button busy={busy === "sign-out"} busyLabel={t("accept.signingOut")} onClick={() => void switchAccount()}>
              {t("accept.switchAccount")}
            </Button>
          ) : null}
          {problem && problem.status >= 500 ? (
            <button type="button" className="button button-secondary" onClick={() => void mutate()}>
              {t("accept.tryAgain")}
            </button>
          ) : null}
          <Link className="button button-secondary" href="/">
            {t("accept.goHome")}
          </Link>
        </div>
      </section>
    );
  }
  return (
    <section className="card invitation-card" aria-labelledby="invite-title">
      <h1 id="invite-title">{t("accept.joinTitle", { organization: data.organizationName })}</h1>
      <dl className="facts">
        <dt>{t("accept.organization")}</dt>
        <dd>{data.organizationName}</dd>
        <dt>{t("accept.invitedBy")}</dt>
        <dd className="break">{data.inviterEmail}</dd>
        <dt>{t("accept.yourRole")}</dt>
        <dd>{roleLabel(data.role)}</dd>
        <dt>{t("accept.sentTo")}</dt>
        <dd className="break">{data.email}</dd>
        <dt>{t("accept.expires")}</dt>
        <dd>{formatDate(data.expiresAt)}</dd>
      </dl>
      {failure ? <InvitationProblem error={failure} email={session.user.email} /> : null}
      <div className="actions">
        <Button busy={busy === "accept"} busyLabel={t("accept.joining")} disabled={busy !== undefined} onClick={() => void accept()}>
          {t("accept.accept")}
        </Button>
        <Button tone="secondary" busy={busy === "reject"} busyLabel={t("accept.rejecting")} disabled={busy !== undefined} onClick={() => void reject()}>
          {t("accept.reject")}
        </Button>
      </div>
    </section>
  );
}

function InvitationProblem({ error, email }: { error: ApiError | undefined; email: string }) {
  const t = useT();
  if (!error) return null;
  const text =
    error.code === "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"
      ? t("accept.wrongRecipient", { email })
      : error.code === "INVITATION_NOT_FOUND" || error.status === 404 || /invitation not found/i.test(error.message ?? "")
        ? t("accept.notFound")
        : describe(error);
  return <FormAlert message={text} />;
}
