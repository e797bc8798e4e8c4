//! One language's catalogue (`locales/<tag>.json`): the sentences every mail shares, each
//! mail's own, and how to say a duration (units with their plural forms, CLDR's rules).

use std::collections::HashMap;
use std::time::Duration;

use gatehouse_kit::language::Language;
use serde::Deserialize;

use super::{Kind, RenderError};

// No `deny_unknown_fields` here (serde cannot combine it with `flatten`): `load` refuses keys
// that name no mail instead.
#[derive(Debug, Deserialize)]
pub struct Locale {
    plural: Plural,
    units: Units,
    pub common: Common,
    #[serde(flatten)]
    mails: HashMap<String, Mail>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Common {
    pub greeting: String,
    pub expires: String,
    pub fallback: String,
    pub footer: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mail {
    pub subject: String,
    pub heading: String,
    pub intro: String,
    pub action: String,
    /// Says how long it works in place of `common.expires` (a code mail's is about the code,
    /// not the link); only for a kind whose link expires.
    #[serde(default)]
    pub expires: Option<String>,
    pub ignore: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Units {
    minute: Vec<String>,
    hour: Vec<String>,
}

/// CLDR plural rules for cardinal numbers, as far as our languages need them.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Plural {
    /// en, es, de, tr: 1 → one; else other.
    OneOther,
    /// fr: 0 and 1 → one; else other.
    French,
    /// ru, uk: one (1, 21, 31…), few (2–4, 22–24…), many (the rest).
    EastSlavic,
    /// pl: one (1 only), few (2–4, 22–24…), many (the rest).
    Polish,
}

impl Plural {
    /// How many forms each unit needs.
    fn forms(self) -> usize {
        match self {
            Plural::OneOther | Plural::French => 2,
            Plural::EastSlavic | Plural::Polish => 3,
        }
    }

    /// Which form `n` takes.
    fn form(self, n: u64) -> usize {
        let (ones, tens) = (n % 10, n % 100);
        let few = (2..=4).contains(&ones) && !(12..=14).contains(&tens);
        match self {
            Plural::OneOther => usize::from(n != 1),
            Plural::French => usize::from(n > 1),
            Plural::EastSlavic if ones == 1 && tens != 11 => 0,
            Plural::Polish if n == 1 => 0,
            Plural::EastSlavic | Plural::Polish if few => 1,
            Plural::EastSlavic | Plural::Polish => 2,
        }
    }
}

impl Locale {
    /// Reads and checks the built-in catalogue of `language`.
    pub fn load(language: Language) -> Result<Self, RenderError> {
        let text = match language {
            Language::Russian => include_str!("../../locales/ru.json"),
            Language::Ukrainian => include_str!("../../locales/uk.json"),
            Language::English => include_str!("../../locales/en.json"),
            Language::Spanish => include_str!("../../locales/es.json"),
            Language::German => include_str!("../../locales/de.json"),
            Language::Polish => include_str!("../../locales/pl.json"),
            Language::French => include_str!("../../locales/fr.json"),
            Language::Turkish => include_str!("../../locales/tr.json"),
        };
        let invalid = |reason: String| RenderError::Catalogue {
            language: language.tag(),
            reason,
        };
        let locale: Locale = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        for kind in Kind::ALL {
            if !locale.mails.contains_key(kind.key()) {
                return Err(invalid(format!("no sentences for {}", kind.key())));
            }
        }
        if let Some(extra) = locale
            .mails
            .keys()
            .find(|k| !Kind::ALL.iter().any(|kind| kind.key() == k.as_str()))
        {
            return Err(invalid(format!("sentences for an unknown mail {extra}")));
        }
        // A mail whose link never expires never says so: its own sentence would be dead text.
        // One that says how long something else lasts (a ban) needs its own.
        for kind in Kind::ALL {
            let own = locale.mails[kind.key()].expires.is_some();
            if !kind.link_expires() && !kind.lasts_apart_from_its_link() && own {
                return Err(invalid(format!(
                    "{} never expires but has an expires sentence",
                    kind.key()
                )));
            }
            if kind.lasts_apart_from_its_link() && !own {
                return Err(invalid(format!(
                    "{} says how long it lasts but has no expires sentence",
                    kind.key()
                )));
            }
        }
        let forms = locale.plural.forms();
        if locale.units.minute.len() != forms || locale.units.hour.len() != forms {
            return Err(invalid(format!("each unit needs {forms} plural forms")));
        }
        Ok(locale)
    }

    pub fn mail(&self, kind: Kind) -> &Mail {
        // `load` made sure every kind is there.
        &self.mails[kind.key()]
    }

    /// "60 minutes", "1 Stunde", "24 часа": whole hours when it is whole hours, else minutes
    /// (rounded up, so a link never works for less than it says).
    pub fn duration(&self, duration: Duration) -> String {
        let seconds = duration.as_secs();
        let (n, unit) = if seconds >= 3600 && seconds.is_multiple_of(3600) {
            (seconds / 3600, &self.units.hour)
        } else {
            (seconds.div_ceil(60).max(1), &self.units.minute)
        };
        let word = &unit[self.plural.form(n).min(unit.len() - 1)];
        format!("{n} {word}")
    }
}
