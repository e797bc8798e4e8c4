//! What a user is told, and what ends, when an admin sets their password or email or resets their
//! second factor: a mail in their language (to the old address for a new email) and
//! `user.credentials-changed`, on which the session service ends every session of theirs. Both
//! are queued in the transaction of the change, so neither happens without the other. A ban is
//! told by mail too (its sessions end by `user.banned`).

use chrono::{DateTime, Utc};
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{MailKind, TwoFactorChange, UserCredentialsChanged};

use crate::security_notice::{mail, request};
use crate::user::User;

/// The web app's page where the user can choose a password of their own (a reset by mail).
const CHOOSE_PASSWORD_PAGE: &str = "/forgot-password/";
/// The web app's sign-in page, for the account's new address.
const SIGN_IN_PAGE: &str = "/sign-in/";
/// The web app's account page, where the second factor is set up again.
const ACCOUNT_PAGE: &str = "/account/";

/// An admin set `user`'s password.
pub fn password_set(user: &User) -> Vec<OutboxEvent> {
    vec![
        mail(
            MailKind::PasswordSetByAdmin,
            user,
            &user.email,
            CHOOSE_PASSWORD_PAGE,
            [],
        ),
        signed_out(user),
    ]
}

/// An admin moved `user` (as they were before) to `new_email`: the old address hears of it.
pub fn email_changed(user: &User, new_email: &str) -> Vec<OutboxEvent> {
    vec![
        mail(
            MailKind::EmailChangedByAdmin,
            user,
            &user.email,
            SIGN_IN_PAGE,
            [("new_email", new_email)],
        ),
        signed_out(user),
    ]
}

/// An admin (`actor_id`) turned `user`'s second factor off: they hear of it, are signed out
/// everywhere, and the change is announced with who made it.
pub fn two_factor_reset(user: &User, actor_id: &str) -> Vec<OutboxEvent> {
    vec![
        mail(
            MailKind::TwoFactorResetByAdmin,
            user,
            &user.email,
            ACCOUNT_PAGE,
            [],
        ),
        signed_out(user),
        crate::two_factor::changed(user, TwoFactorChange::Reset, actor_id),
    ]
}

fn signed_out(user: &User) -> OutboxEvent {
    OutboxEvent::new(&UserCredentialsChanged {
        user_id: user.id.clone(),
    })
}

/// An admin banned `user` for `reason`, until `expires` (or for good): they hear of it, how
/// long it lasts said in their language (the mail's `expires_in_seconds`).
pub fn banned(user: &User, reason: &str, expires: Option<DateTime<Utc>>) -> OutboxEvent {
    let mut request = request(
        MailKind::BannedByAdmin,
        user,
        &user.email,
        SIGN_IN_PAGE,
        [("reason", reason)],
    );
    request.expires_in_seconds = expires.map_or(0, |end| {
        (end - gatehouse_kit::ids::now()).num_seconds().max(1)
    });
    OutboxEvent::new(&request)
}
