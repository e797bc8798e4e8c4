//! What a user is told, and what ends, when an admin sets their password or email or resets their
//! second factor: a mail in
//! their language (to the old address for a new email) and `user.credentials-changed`, on
//! which the session service ends every session of theirs. Both are queued in the transaction
//! of the change, so neither happens without the other.

use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{
    MailKind, MailRequested, TwoFactorChange, UserCredentialsChanged,
};

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
            None,
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
            Some(new_email),
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
            None,
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

fn mail(kind: MailKind, user: &User, to: &str, page: &str, new_email: Option<&str>) -> OutboxEvent {
    OutboxEvent::new(&MailRequested {
        kind: kind.into(),
        to: to.to_string(),
        name: if user.name.is_empty() {
            user.email.clone()
        } else {
            user.name.clone()
        },
        language: user.language,
        link_path: page.to_string(),
        // The link is a page, not a token: it does not expire.
        expires_in_seconds: 0,
        params: new_email
            .map(|email| ("new_email".to_string(), email.to_string()))
            .into_iter()
            .collect(),
        user_id: user.id.clone(),
    })
}
