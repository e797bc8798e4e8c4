"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

- Every request is signed in as a *principal*: an admin (made with ADMIN_GRANT_CMD, as an
  operator would) who owns an organization that is the session's active one, so the admin,
  organization and billing routes are tested past 401. The run is free to revoke, ban, demote,
  delete or move that principal: a response that may have done so marks it suspect, and the
  next request first checks it and repairs it (or makes a new one).
- A schema-valid request must never be refused as malformed: the check below fails a positive
  case answered with a code that judges the request's shape, which means the document says
  less than the server enforces.
- Billing endpoints are registered with their URL pointed at a closed loopback port, so that
  test events, replays and retries never leave the machine.
- better-auth's status-only errors (an empty body labelled JSON) are not counted as bodies
  that fail to parse; nothing else is excused.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
import uuid

import requests
import schemathesis

BASE_URL = os.environ["GATEHOUSE_URL"].rstrip("/")
ADMIN_GRANT_CMD = os.environ["ADMIN_GRANT_CMD"]
SESSION_COOKIE = "better-auth.session_token"
PASSWORD = "Schemathesis-Principal-9"
# Nothing listens here (port 9, discard): a delivery attempt fails at once, on loopback. A
# name (resolved from /etc/hosts) rather than 127.0.0.1, which the documented pattern refuses.
SINK_URL = "http://localhost:9/schemathesis"

# Codes that judge a request's shape alone (given the configuration), never the state it meets.
MALFORMED = {
    "VALIDATION_ERROR",
    "BAD_REQUEST",
    "BODY_MUST_BE_AN_OBJECT",
    "MISSING_FIELD",
    "UNSUPPORTED_MEDIA_TYPE",
    "PASSWORD_TOO_SHORT",
    "PASSWORD_TOO_LONG",
    "INVALID_EMAIL",
    "USERNAME_TOO_SHORT",
    "USERNAME_TOO_LONG",
    "INVALID_USERNAME",
    "INVALID_DISPLAY_USERNAME",
    "FIELD_NOT_ALLOWED",
    "EMAIL_CAN_NOT_BE_UPDATED",
    "PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER",
    "USER_ID_CANNOT_BE_UPDATED",
    "INVALID_ROLE_TYPE",
    "INVALID_TEAM_ID",
    "INVALID_ENDPOINT_URL",
    "INVALID_EVENT_TYPE",
    "INVALID_DELIVERY_STATUS",
    "CALLBACK_URL_REQUIRED",
}

# Refusals a parameter's schema cannot foresee: what `filterValue` and `filterOperator` may
# be depends on `filterField` (a time, true or false, or text; the text operators on text
# only), and OpenAPI has no way to make one query parameter's schema depend on another's.
ACROSS_PARAMETERS = {
    "GET /admin/list-users": ("[query.filterValue]", "[query.filterOperator] Unknown operator for"),
    "GET /organization/list-members": ("[query.filterValue]", "[query.filterOperator] Unknown operator for"),
}

# Operations whose success may take something from the principal: its session, its role, its
# organization, or the organization's place as the active one.
DISARMING = {
    "/sign-out",
    "/revoke-session",
    "/revoke-sessions",
    "/delete-user",
    "/change-password",
    "/admin/set-role",
    "/admin/update-user",
    "/admin/ban-user",
    "/admin/remove-user",
    "/admin/set-user-password",
    "/admin/revoke-user-session",
    "/admin/revoke-user-sessions",
    "/organization/set-active",
    "/organization/delete",
    "/organization/leave",
    "/organization/remove-member",
    "/organization/update-member-role",
}


class Principal:
    """The signed-in admin every request acts as; made once, checked when suspect."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cookie: str | None = None
        self.organization_id: str | None = None
        self.email: str | None = None
        self.suspect = False
        self.made = 0
        self.repaired = 0

    def _post(self, path: str, body: dict, cookie: str | None = None) -> requests.Response:
        headers = {"Origin": BASE_URL}
        if cookie:
            headers["Cookie"] = cookie
        return requests.post(f"{BASE_URL}/api/auth{path}", json=body, headers=headers, timeout=30)

    def _make(self) -> None:
        self.email = f"st-{uuid.uuid4().hex[:16]}@example.com"
        response = self._post(
            "/sign-up/email",
            {"name": "Schemathesis", "email": self.email, "password": PASSWORD},
        )
        response.raise_for_status()
        self.cookie = f"{SESSION_COOKIE}={response.cookies.get(SESSION_COOKIE)}"
        self._grant()
        user_id = response.json()["user"]["id"]
        # A verified address, as an invitee's would be: the routes that list the caller's
        # invitations answer only then.
        verified = self._post(
            "/admin/update-user", {"userId": user_id, "data": {"emailVerified": True}}, self.cookie
        )
        verified.raise_for_status()
        self._organize()
        self.made += 1

    def _grant(self) -> None:
        command = f"{ADMIN_GRANT_CMD} {shlex.quote(self.email or '')}"
        subprocess.run(command, shell=True, check=True, capture_output=True, timeout=60)

    def _organize(self) -> None:
        slug = f"st-{uuid.uuid4().hex[:16]}"
        response = self._post("/organization/create", {"name": "Schemathesis", "slug": slug}, self.cookie)
        response.raise_for_status()
        self.organization_id = response.json()["id"]

    def _repair(self) -> None:
        """Puts the principal back as it was made, or makes a new one."""
        headers = {"Cookie": self.cookie or ""}
        session = requests.get(f"{BASE_URL}/api/auth/get-session", headers=headers, timeout=30)
        found = session.json() if session.status_code == 200 else None
        if not found:
            self._make()
            return
        if "admin" not in (found["user"].get("role") or "").split(","):
            self._grant()
        if found["session"].get("activeOrganizationId") != self.organization_id:
            moved = self._post("/organization/set-active", {"organizationId": self.organization_id}, self.cookie)
            if moved.status_code != 200:
                self._organize()
        else:
            member = requests.get(
                f"{BASE_URL}/api/auth/organization/get-active-member-role", headers=headers, timeout=30
            )
            if member.status_code != 200 or member.json().get("role") != "owner":
                self._organize()
        self.repaired += 1

    def current(self) -> str:
        with self.lock:
            if self.cookie is None:
                self._make()
            elif self.suspect:
                self._repair()
            self.suspect = False
            return self.cookie or ""


PRINCIPAL = Principal()


@schemathesis.auth(refresh_interval=None)
class SignedIn:
    def get(self, case, context):
        return PRINCIPAL.current()

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Cookie": data, "Origin": BASE_URL}


def _relative_path(case) -> str:
    return case.operation.path


@schemathesis.hook
def before_call(context, case, kwargs):
    # An endpoint's URL is only ever sent to loopback; anything that is not an http(s) URL is
    # left as generated (the server refuses it). URL parsing drops tabs and newlines anywhere
    # and C0 controls and spaces at the ends, so the prefix is judged the same way.
    if case.operation.path.startswith("/endpoints") and case.method.upper() in ("POST", "PATCH"):
        body = case.body
        if isinstance(body, dict) and isinstance(body.get("url"), str):
            url = "".join(ch for ch in body["url"] if ch not in "\t\n\r").strip("".join(map(chr, range(33))))
            if url.lower().startswith("http"):
                case.body = {**body, "url": SINK_URL}


@schemathesis.hook
def after_call(context, case, response):
    if response.status_code == 401 or (
        200 <= response.status_code < 300 and _relative_path(case) in DISARMING
    ):
        PRINCIPAL.suspect = True


@schemathesis.hook
def filter_failure(context, failure, case, response):
    # better-auth throws some errors with a status only: an empty body, still labelled
    # `application/json` (protocol §2.1; update-member-role with an empty role answers 400 so).
    # Only that exact answer is let through: any other body must be the JSON it says it is.
    status_only = (
        failure.code == "ST109"
        and response is not None
        and 400 <= response.status_code < 500
        and not response.content
    )
    return not status_only


@schemathesis.check
def valid_input_is_not_refused_as_malformed(ctx, response, case):
    """A request the document calls valid is never refused for its shape."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code not in (400, 413, 415, 422):
        return None
    try:
        refusal = json.loads(response.content)
        code, message = refusal.get("code"), refusal.get("message", "")
    except (ValueError, AttributeError):
        code, message = None, ""
    if any(message.startswith(prefix) for prefix in ACROSS_PARAMETERS.get(case.operation.label, ())):
        return None
    if code in MALFORMED:
        raise AssertionError(
            f"A request valid by the document was refused as malformed ({response.status_code} {code}): "
            "the document says less than the server enforces"
        )
    return None
