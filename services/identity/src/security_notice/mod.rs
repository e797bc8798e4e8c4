//! What a user is told by mail about their account's security, in their language: their
//! password or email changed by their own hand (the old address hears of a new one), or a
//! sign-in came from a device new to the account (`events`). Each mail is queued in the
//! transaction of what it tells of. An admin's actions have theirs in `admin::notice`, built
//! with [`mail`].

pub mod events;

use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{MailKind, MailRequested};

use crate::user::User;

/// The web app's page that mails a reset link: where to go when a change was not yours.
const FORGOT_PASSWORD_PAGE: &str = "/forgot-password/";
/// The web app's account page, where sessions are listed and ended.
const ACCOUNT_PAGE: &str = "/account/";

/// `user` changed their password, or reset it by mail.
pub fn password_changed(user: &User) -> OutboxEvent {
    mail(
        MailKind::PasswordChanged,
        user,
        &user.email,
        FORGOT_PASSWORD_PAGE,
        [],
    )
}

/// `user` (as they were before) moved their account to `new_email`: the old address hears.
pub fn email_changed(user: &User, new_email: &str) -> OutboxEvent {
    mail(
        MailKind::EmailChanged,
        user,
        &user.email,
        FORGOT_PASSWORD_PAGE,
        [("new_email", new_email)],
    )
}

/// `user` signed in from `device` at `ip_address`, a device new to their account.
pub fn new_device(user: &User, device: &str, ip_address: &str) -> OutboxEvent {
    mail(
        MailKind::NewDeviceSignIn,
        user,
        &user.email,
        ACCOUNT_PAGE,
        [("device", device), ("ip_address", ip_address)],
    )
}

/// A mail to `user` at `to` whose link is a page of the web app (it does not expire).
pub fn mail<const N: usize>(
    kind: MailKind,
    user: &User,
    to: &str,
    page: &str,
    params: [(&str, &str); N],
) -> OutboxEvent {
    OutboxEvent::new(&request(kind, user, to, page, params))
}

/// The [`mail`]'s request, for a caller that says more (how long something lasts).
pub fn request<const N: usize>(
    kind: MailKind,
    user: &User,
    to: &str,
    page: &str,
    params: [(&str, &str); N],
) -> MailRequested {
    MailRequested {
        kind: kind.into(),
        to: to.to_string(),
        name: if user.name.is_empty() {
            user.email.clone()
        } else {
            user.name.clone()
        },
        language: user.language,
        link_path: page.to_string(),
        expires_in_seconds: 0,
        params: params
            .into_iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect(),
        user_id: user.id.clone(),
    }
}
