//! Mails rendered from templates in the recipient's language. One layout per format
//! (`templates/mail.html`, `templates/mail.txt`, minijinja, HTML-escaped by extension) and one
//! catalogue per language (`locales/<tag>.json`) holding every mail's sentences. Placeholders
//! in a sentence (`{name}`, `{email}`, `{new_email}`, `{expires}`, `{organization}`,
//! `{inviter}`, `{url}`, `{device}`, `{ip_address}`, `{reason}`) are filled before the
//! template runs, so a translator can put them where their language needs them. A one-time
//! code is no placeholder: the templates show it on its own, so no sentence (a subject shows
//! on lock screens) can carry it.

mod locale;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use gatehouse_kit::language::Language;
use minijinja::Environment;
use serde::Serialize;

pub use locale::Locale;

/// Which mail: each has its own sentences in every catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    VerifyEmail,
    ResetPassword,
    ConfirmEmailChange,
    ConfirmAccountDeletion,
    /// An invitation to an organization (`organization`, `inviter` name them).
    OrganizationInvitation,
    /// A billing webhook endpoint the recipient registered was disabled (`url` names it).
    EndpointDisabled,
    /// An admin set the recipient's password; they were signed out everywhere.
    PasswordSetByAdmin,
    /// An admin moved the recipient's account to another address (`new_email`); sent to the
    /// old one. They were signed out everywhere.
    EmailChangedByAdmin,
    /// A sign-in's second factor: the one-time `code` is the point of the mail; its link goes
    /// to the page where the code is typed.
    TwoFactorCode,
    /// An admin turned the recipient's second factor off; they were signed out everywhere.
    TwoFactorResetByAdmin,
    /// The recipient changed their password (or reset it by mail).
    PasswordChanged,
    /// The recipient moved their account to `new_email`; sent to the old address.
    EmailChanged,
    /// The recipient signed in from a new `device` (at `ip_address`).
    NewDeviceSignIn,
    /// An admin banned the recipient (`reason`); `expires_in` is how long the ban lasts, zero
    /// when it has no end.
    BannedByAdmin,
}

impl Kind {
    pub const ALL: [Kind; 14] = [
        Kind::VerifyEmail,
        Kind::ResetPassword,
        Kind::ConfirmEmailChange,
        Kind::ConfirmAccountDeletion,
        Kind::OrganizationInvitation,
        Kind::EndpointDisabled,
        Kind::PasswordSetByAdmin,
        Kind::EmailChangedByAdmin,
        Kind::TwoFactorCode,
        Kind::TwoFactorResetByAdmin,
        Kind::PasswordChanged,
        Kind::EmailChanged,
        Kind::NewDeviceSignIn,
        Kind::BannedByAdmin,
    ];

    /// Whether its link stops working (the mail then says when).
    pub const fn link_expires(self) -> bool {
        !matches!(
            self,
            Kind::EndpointDisabled
                | Kind::PasswordSetByAdmin
                | Kind::EmailChangedByAdmin
                | Kind::TwoFactorResetByAdmin
                | Kind::PasswordChanged
                | Kind::EmailChanged
                | Kind::NewDeviceSignIn
                | Kind::BannedByAdmin
        )
    }

    /// Whether the mail says how long something lasts: its link, or a ban that has an end.
    pub fn says_how_long(self, expires_in: Duration) -> bool {
        self.link_expires() || (self.lasts_apart_from_its_link() && !expires_in.is_zero())
    }

    /// A kind that says how long something other than its link lasts (a ban), in a sentence of
    /// its own that every catalogue must have.
    pub const fn lasts_apart_from_its_link(self) -> bool {
        matches!(self, Kind::BannedByAdmin)
    }

    /// Whether it shows a one-time code (the `code` param, which it then needs).
    pub const fn shows_code(self) -> bool {
        matches!(self, Kind::TwoFactorCode)
    }

    /// The kind's key in the catalogues and its name in the mail log.
    pub const fn key(self) -> &'static str {
        match self {
            Kind::VerifyEmail => "verify-email",
            Kind::ResetPassword => "reset-password",
            Kind::ConfirmEmailChange => "confirm-email-change",
            Kind::ConfirmAccountDeletion => "confirm-account-deletion",
            Kind::OrganizationInvitation => "organization-invitation",
            Kind::EndpointDisabled => "endpoint-disabled",
            Kind::PasswordSetByAdmin => "password-set-by-admin",
            Kind::EmailChangedByAdmin => "email-changed-by-admin",
            Kind::TwoFactorCode => "two-factor-code",
            Kind::TwoFactorResetByAdmin => "two-factor-reset-by-admin",
            Kind::PasswordChanged => "password-changed",
            Kind::EmailChanged => "email-changed",
            Kind::NewDeviceSignIn => "new-device-sign-in",
            Kind::BannedByAdmin => "banned-by-admin",
        }
    }
}

/// What a mail says, before it is put into words.
#[derive(Clone, Debug)]
pub struct Content {
    pub kind: Kind,
    pub language: Language,
    /// The recipient's name, for the greeting.
    pub name: String,
    /// The recipient's address (some sentences name it).
    pub email: String,
    /// The one link of the mail, absolute.
    pub link: url::Url,
    /// How long the link works.
    pub expires_in: Duration,
    /// More placeholders a kind's sentences use (`new_email`), and the `code` a kind that
    /// shows one needs.
    pub params: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("catalogue {language}: {reason}")]
    Catalogue {
        language: &'static str,
        reason: String,
    },
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
    /// The kind needs this param (a code mail its `code`), and it is missing or blank.
    #[error("no {0} for this mail")]
    MissingParam(&'static str),
}

/// The param holding the one-time code of a kind that [shows one](Kind::shows_code).
const CODE: &str = "code";

/// The sentences of one mail, placeholders filled: what the templates show.
#[derive(Serialize)]
struct Sentences {
    subject: String,
    heading: String,
    greeting: String,
    intro: String,
    action: String,
    /// Empty for a mail whose link does not expire (the templates leave the line out).
    expires: String,
    fallback: String,
    ignore: String,
    footer: String,
}

/// The templates and every language's catalogue, checked once at start.
pub struct Templates {
    env: Environment<'static>,
    locales: HashMap<Language, Locale>,
}

impl Templates {
    pub fn new() -> Result<Self, RenderError> {
        let mut env = Environment::new();
        env.add_template("mail.html", include_str!("../../templates/mail.html"))?;
        env.add_template("mail.txt", include_str!("../../templates/mail.txt"))?;
        // A missing value is a bug in this crate, not an empty string in someone's inbox.
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.set_formatter(escape_html);
        let locales = Language::ALL
            .into_iter()
            .map(|language| Ok((language, Locale::load(language)?)))
            .collect::<Result<_, RenderError>>()?;
        Ok(Self { env, locales })
    }

    pub fn render(&self, content: &Content) -> Result<Rendered, RenderError> {
        let locale = self
            .locales
            .get(&content.language)
            .or_else(|| self.locales.get(&Language::DEFAULT))
            .ok_or_else(|| RenderError::Catalogue {
                language: content.language.tag(),
                reason: "not loaded".into(),
            })?;
        let mail = locale.mail(content.kind);
        // Empty for a kind that shows no code (the templates leave the box out).
        let code = if content.kind.shows_code() {
            content
                .params
                .get(CODE)
                .map(String::as_str)
                .filter(|code| !code.trim().is_empty())
                .ok_or(RenderError::MissingParam(CODE))?
        } else {
            ""
        };
        // The code never fills a sentence: `{code}` in a subject would put it on lock screens.
        let mut values: BTreeMap<&str, String> = content
            .params
            .iter()
            .filter(|(k, _)| k.as_str() != CODE)
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        values.insert("name", content.name.clone());
        values.insert("email", content.email.clone());
        values.insert("expires", locale.duration(content.expires_in));
        let fill = |sentence: &str| fill(sentence, &values);
        let sentences = Sentences {
            subject: fill(&mail.subject),
            heading: fill(&mail.heading),
            greeting: fill(&locale.common.greeting),
            intro: fill(&mail.intro),
            action: fill(&mail.action),
            // A mail may say it its own way (the code mail's is about the code, not the link).
            expires: if content.kind.says_how_long(content.expires_in) {
                fill(mail.expires.as_deref().unwrap_or(&locale.common.expires))
            } else {
                String::new()
            },
            fallback: fill(&locale.common.fallback),
            ignore: fill(&mail.ignore),
            footer: fill(&locale.common.footer),
        };
        let context = minijinja::context! {
            lang => content.language.tag(),
            link => content.link.as_str(),
            code => code,
            s => minijinja::Value::from(minijinja::value::Serde(&sentences)),
        };
        Ok(Rendered {
            html: self.env.get_template("mail.html")?.render(&context)?,
            text: self.env.get_template("mail.txt")?.render(&context)?,
            subject: sentences.subject,
        })
    }
}

/// HTML escaping of the five characters that matter (minijinja's default also escapes `/`,
/// which turns every link in a mail's source into `https:&#x2f;&#x2f;…`); other formats as
/// minijinja does them.
fn escape_html(
    out: &mut minijinja::Output,
    state: &mut minijinja::State,
    value: &minijinja::Value,
) -> Result<(), minijinja::Error> {
    let text = match (state.auto_escape(), value.as_str()) {
        (minijinja::AutoEscape::Html, Some(text)) if !value.is_safe() => text,
        _ => return minijinja::escape_formatter(out, state, value),
    };
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            _ => escaped.push(c),
        }
    }
    out.write_str(&escaped).map_err(|e| {
        minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "writing the mail").with_source(e)
    })
}

/// `sentence` with each `{key}` replaced by its value (one pass: values are never re-read).
fn fill(sentence: &str, values: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(sentence.len() + 32);
    let mut rest = sentence;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], close)) {
            Some((key, close)) if values.contains_key(key) => {
                out.push_str(&values[key]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
