//! The platform's languages, by the codes the rest of the platform uses (a user's preferred
//! language is stored as one of them). Unknown codes mean English. Also the one place that reads
//! an `Accept-Language` header (RFC 9110 §12.5.4) into a code.

/// A language the platform writes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    Russian,
    Ukrainian,
    English,
    Spanish,
    German,
    Polish,
    French,
    Turkish,
}

impl Language {
    pub const ALL: [Language; 8] = [
        Language::Russian,
        Language::Ukrainian,
        Language::English,
        Language::Spanish,
        Language::German,
        Language::Polish,
        Language::French,
        Language::Turkish,
    ];
    pub const DEFAULT: Language = Language::English;

    /// The platform's code: RUS 0, UKR 1, ENG 3, SPA 4, GERMAN 6, POL 15, FRA 16, TURKEY 82.
    pub const fn code(self) -> i32 {
        match self {
            Language::Russian => 0,
            Language::Ukrainian => 1,
            Language::English => 3,
            Language::Spanish => 4,
            Language::German => 6,
            Language::Polish => 15,
            Language::French => 16,
            Language::Turkish => 82,
        }
    }

    /// The language with this code, if the platform has one.
    pub fn from_code(code: i32) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.code() == code)
    }

    /// The language to write in for a stored code: English for one we do not know.
    pub fn or_default(code: i32) -> Language {
        Language::from_code(code).unwrap_or(Language::DEFAULT)
    }

    /// The BCP 47 primary language subtag (`ru`, `uk`, `en`, …).
    pub const fn tag(self) -> &'static str {
        match self {
            Language::Russian => "ru",
            Language::Ukrainian => "uk",
            Language::English => "en",
            Language::Spanish => "es",
            Language::German => "de",
            Language::Polish => "pl",
            Language::French => "fr",
            Language::Turkish => "tr",
        }
    }

    /// The best of our languages for an `Accept-Language` header: the highest `q` among the
    /// ranges whose primary subtag we speak (`de-AT` counts as `de`), the first listed on a tie;
    /// English when none matches or the header is absent.
    pub fn from_accept_language(header: Option<&str>) -> Language {
        let mut best: Option<(f32, Language)> = None;
        for range in header.unwrap_or("").split(',') {
            let mut parts = range.split(';');
            let tag = parts.next().unwrap_or("").trim();
            let primary = tag.split('-').next().unwrap_or("").to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            let Some(language) = Language::ALL.into_iter().find(|l| l.tag() == primary) else {
                continue;
            };
            if q > 0.0 && best.is_none_or(|(seen, _)| q > seen) {
                best = Some((q, language));
            }
        }
        best.map_or(Language::DEFAULT, |(_, language)| language)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_platforms_and_unknown_means_english() {
        let codes: Vec<i32> = Language::ALL.iter().map(|l| l.code()).collect();
        assert_eq!(codes, [0, 1, 3, 4, 6, 15, 16, 82]);
        for language in Language::ALL {
            assert_eq!(Language::from_code(language.code()), Some(language));
        }
        assert_eq!(Language::from_code(2), None);
        assert_eq!(Language::or_default(2), Language::English);
        assert_eq!(Language::or_default(-1), Language::English);
        assert_eq!(Language::or_default(82), Language::Turkish);
    }

    #[test]
    fn accept_language_picks_the_best_range_we_speak() {
        let pick = |h: &str| Language::from_accept_language(Some(h));
        assert_eq!(pick("de-AT,de;q=0.9,en;q=0.8"), Language::German);
        assert_eq!(pick("ja,fr;q=0.5,en;q=0.4"), Language::French);
        assert_eq!(pick("en;q=0.2, uk;q=0.9"), Language::Ukrainian);
        assert_eq!(pick("pl;q=0, tr"), Language::Turkish);
        assert_eq!(pick("RU-ru"), Language::Russian);
        assert_eq!(pick("es, de"), Language::Spanish);
        assert_eq!(pick("ja, zh;q=0.9"), Language::English);
        assert_eq!(pick(""), Language::English);
        assert_eq!(Language::from_accept_language(None), Language::English);
    }
}
