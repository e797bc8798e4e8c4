//! A new link built for a user: its token, its row and the mail that carries it.

use std::time::Duration;

use chrono::{DateTime, Utc};
use gatehouse_kit::config::AUTH_BASE_PATH;
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::MailRequested;

use super::{Link, Purpose, token_hash};
use crate::user::User;

/// What a new link says and where its mail goes.
pub struct NewLink<'a> {
    pub purpose: Purpose,
    pub user: &'a User,
    /// The address the mail goes to.
    pub to: &'a str,
    /// A change of email's new address.
    pub new_email: Option<&'a str>,
    pub lifetime: Duration,
    /// The link's route below the auth API and its query; `{token}` in `path` is replaced by
    /// the token, and `token` joins the query unless the path holds it.
    pub path: &'a str,
    pub query: &'a [(&'a str, &'a str)],
}

impl NewLink<'_> {
    pub fn build(self) -> Link {
        let token = self.purpose.new_token();
        let now = ids::now();
        let lifetime = chrono::Duration::from_std(self.lifetime).unwrap_or(chrono::Duration::MAX);
        let mut link_path = format!(
            "{AUTH_BASE_PATH}{}",
            self.path.replace("{token}", token.as_str())
        );
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if !self.path.contains("{token}") {
            query.append_pair("token", &token);
        }
        for (name, value) in self.query {
            query.append_pair(name, value);
        }
        let query = query.finish();
        if !query.is_empty() {
            link_path.push('?');
            link_path.push_str(&query);
        }
        let mut params = std::collections::HashMap::new();
        if let Some(new_email) = self.new_email {
            params.insert("new_email".to_string(), new_email.to_string());
        }
        let mail = OutboxEvent::new(&MailRequested {
            kind: self.purpose.mail_kind() as i32,
            to: self.to.to_string(),
            name: self.user.name.clone(),
            language: self.user.language,
            link_path,
            expires_in_seconds: i64::try_from(self.lifetime.as_secs()).unwrap_or(i64::MAX),
            params,
            user_id: self.user.id.clone(),
        });
        Link {
            id: ids::new_id(),
            token_hash: token_hash(&token),
            purpose: self.purpose,
            user_id: self.user.id.clone(),
            email: self.user.email.clone(),
            new_email: self.new_email.map(str::to_string),
            expires_at: now
                .checked_add_signed(lifetime)
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
            mail,
        }
    }
}
