use super::*;

/// The one-time code [`content`] carries (a leading zero: a code is text, not a number).
const SIGN_IN_CODE: &str = "042917";

fn content(kind: Kind, language: Language, name: &str) -> Content {
    Content {
        kind,
        language,
        name: name.into(),
        email: "ada@example.com".into(),
        link: url::Url::parse(
            "https://auth.example.com/api/auth/verify-email?token=tok123&callbackURL=%2F",
        )
        .unwrap(),
        expires_in: Duration::from_secs(3600),
        params: BTreeMap::from([
            ("new_email".to_string(), "new@example.com".to_string()),
            ("organization".to_string(), "Acme Trading".to_string()),
            ("inviter".to_string(), "Olga Owner".to_string()),
            (
                "url".to_string(),
                "https://hooks.example.com/in".to_string(),
            ),
            ("code".to_string(), SIGN_IN_CODE.to_string()),
            ("device".to_string(), "Firefox, Windows".to_string()),
            ("ip_address".to_string(), "203.0.113.7".to_string()),
            ("reason".to_string(), "Spamming the forum".to_string()),
        ]),
    }
}

#[test]
fn every_mail_renders_in_every_language_with_its_link_and_the_users_name() {
    let templates = Templates::new().unwrap();
    let english: HashMap<Kind, Rendered> = Kind::ALL
        .into_iter()
        .map(|k| {
            (
                k,
                templates
                    .render(&content(k, Language::English, "Ada Lovelace"))
                    .unwrap(),
            )
        })
        .collect();
    for language in Language::ALL {
        let locale = Locale::load(language).unwrap();
        for kind in Kind::ALL {
            let mail = templates
                .render(&content(kind, language, "Ada Lovelace"))
                .unwrap();
            let what = format!("{} in {}", kind.key(), language.tag());
            // The link, whole and clickable (in HTML its `&` is escaped as HTML requires).
            let link =
                "https://auth.example.com/api/auth/verify-email?token=tok123&callbackURL=%2F";
            assert!(mail.text.contains(link), "{what}: text lacks the link");
            assert!(
                mail.html
                    .contains(&format!("href=\"{}\"", link.replace('&', "&amp;"))),
                "{what}: html lacks the link"
            );
            assert!(
                mail.text.contains("Ada Lovelace") && mail.html.contains("Ada Lovelace"),
                "{what}: no name"
            );
            assert!(
                mail.html
                    .contains(&format!("<html lang=\"{}\">", language.tag())),
                "{what}"
            );
            // Every placeholder was filled (a `{code}` would not be: the code fills no sentence).
            for part in [&mail.subject, &mail.text, &mail.html] {
                assert!(
                    !part.contains('{') && !part.contains('}'),
                    "{what}: placeholder left in {part}"
                );
            }
            // Only a code mail shows the code, in both formats, and never in its subject.
            assert_eq!(
                mail.text.contains(SIGN_IN_CODE),
                kind.shows_code(),
                "{what}: text"
            );
            assert_eq!(
                mail.html.contains(SIGN_IN_CODE),
                kind.shows_code(),
                "{what}: html"
            );
            assert!(
                !mail.subject.contains(SIGN_IN_CODE),
                "{what}: the code is in the subject"
            );
            if kind == Kind::ConfirmEmailChange {
                assert!(
                    mail.text.contains("new@example.com"),
                    "{what}: the new address is not named"
                );
            }
            if kind == Kind::OrganizationInvitation {
                assert!(
                    mail.subject.contains("Acme Trading") && mail.text.contains("Olga Owner"),
                    "{what}: the organization and the inviter are not named"
                );
            }
            if kind == Kind::EndpointDisabled {
                assert!(
                    mail.text.contains("https://hooks.example.com/in"),
                    "{what}: the endpoint is not named"
                );
            }
            // An admin's change names the account, and a new email the address it moved to.
            if kind == Kind::PasswordSetByAdmin {
                assert!(
                    mail.text.contains("ada@example.com"),
                    "{what}: the account is not named"
                );
            }
            if kind == Kind::EmailChangedByAdmin {
                assert!(
                    mail.text.contains("ada@example.com") && mail.text.contains("new@example.com"),
                    "{what}: the old and the new address are not both named"
                );
            }
            // The user's own changes name the account (and a new email both addresses); a new
            // device's sign-in the device and where from; a ban its reason.
            if kind == Kind::EmailChanged {
                assert!(
                    mail.text.contains("ada@example.com") && mail.text.contains("new@example.com"),
                    "{what}: the old and the new address are not both named"
                );
            }
            if kind == Kind::NewDeviceSignIn {
                assert!(
                    mail.text.contains("ada@example.com")
                        && mail.text.contains("Firefox, Windows")
                        && mail.text.contains("203.0.113.7"),
                    "{what}: the account, the device or the address is not named"
                );
            }
            if kind == Kind::BannedByAdmin {
                assert!(
                    mail.text.contains("ada@example.com")
                        && mail.text.contains("Spamming the forum"),
                    "{what}: the account or the reason is not named"
                );
            }
            // A sign-in's code and an admin's reset of the second factor name the account.
            if matches!(
                kind,
                Kind::TwoFactorCode | Kind::TwoFactorResetByAdmin | Kind::PasswordChanged
            ) {
                assert!(
                    mail.text.contains("ada@example.com"),
                    "{what}: the account is not named"
                );
            }
            // The line saying how long the link works, only where it stops working; a mail with
            // a sentence of its own (the code mail's) says that one instead.
            let expiry = templates
                .render(&content(Kind::VerifyEmail, language, "Ada Lovelace"))
                .unwrap();
            let says_expiry = expiry
                .text
                .lines()
                .find(|line| line.contains(&mail_duration(language)))
                .map(str::to_string);
            let own_expiry = locale.mail(kind).expires.is_some();
            if let Some(line) = says_expiry {
                assert_eq!(
                    mail.text.contains(&line),
                    kind.link_expires() && !own_expiry,
                    "{what}"
                );
            }
            assert_eq!(
                mail.text.contains(&mail_duration(language)),
                kind.says_how_long(Duration::from_secs(3600)),
                "{what}: how long it works"
            );
            if kind == Kind::VerifyEmail {
                assert!(
                    mail.text.contains("ada@example.com"),
                    "{what}: the address is not named"
                );
            }
            // Written in the language, not English left in place.
            if language != Language::English {
                let en = &english[&kind];
                assert_ne!(mail.subject, en.subject, "{what}: subject is English");
                assert_ne!(mail.text, en.text, "{what}: body is English");
            }
        }
    }
}

#[test]
fn a_name_is_text_never_markup_nor_a_placeholder() {
    let templates = Templates::new().unwrap();
    let mail = templates
        .render(&content(
            Kind::ResetPassword,
            Language::German,
            "<b>Eve</b> {email}",
        ))
        .unwrap();
    assert!(
        mail.html.contains("&lt;b&gt;Eve&lt;/b&gt; {email}"),
        "{}",
        mail.html
    );
    assert!(!mail.html.contains("<b>Eve"));
    // Plain text stays plain: no HTML escaping there.
    assert!(
        mail.text.contains("Hallo <b>Eve</b> {email},"),
        "{}",
        mail.text
    );
}

#[test]
fn a_code_mail_shows_the_code_before_the_button_and_says_how_long_the_code_works() {
    let templates = Templates::new().unwrap();
    let link = "https://auth.example.com/api/auth/verify-email";
    for language in Language::ALL {
        let what = language.tag();
        let locale = Locale::load(language).unwrap();
        let mail = templates
            .render(&content(Kind::TwoFactorCode, language, "Ada Lovelace"))
            .unwrap();
        // A line of its own in the text, the box in the HTML: both before the link.
        assert!(
            mail.text.lines().any(|line| line == SIGN_IN_CODE),
            "{what}: {}",
            mail.text
        );
        assert!(
            mail.text.find(SIGN_IN_CODE).unwrap() < mail.text.find(link).unwrap(),
            "{what}: the code comes after the link"
        );
        let code_box = format!(">{SIGN_IN_CODE}</p>");
        assert!(mail.html.contains(&code_box), "{what}: {}", mail.html);
        assert!(
            mail.html.find(&code_box).unwrap() < mail.html.find(link).unwrap(),
            "{what}: the code comes after the button"
        );
        // Its own sentence, about the code; not the shared one, about the link.
        let own = locale
            .mail(Kind::TwoFactorCode)
            .expires
            .as_deref()
            .unwrap_or_else(|| panic!("{what}: no expires sentence of its own"))
            .replace("{expires}", &mail_duration(language));
        assert!(
            mail.text.lines().any(|line| line == own),
            "{what}: {}",
            mail.text
        );
        let shared = locale
            .common
            .expires
            .replace("{expires}", &mail_duration(language));
        assert!(!mail.text.contains(&shared), "{what}: the link's expiry");
    }
}

#[test]
fn a_code_is_text_never_markup() {
    let templates = Templates::new().unwrap();
    let mut request = content(Kind::TwoFactorCode, Language::English, "Ada Lovelace");
    request
        .params
        .insert("code".to_string(), "<b>42</b>&".to_string());
    let mail = templates.render(&request).unwrap();
    assert!(
        mail.html.contains("&lt;b&gt;42&lt;/b&gt;&amp;"),
        "{}",
        mail.html
    );
    assert!(!mail.html.contains("<b>42"));
    // Plain text stays plain: no HTML escaping there.
    assert!(
        mail.text.lines().any(|line| line == "<b>42</b>&"),
        "{}",
        mail.text
    );
}

#[test]
fn a_code_mail_without_its_code_is_a_render_error() {
    let templates = Templates::new().unwrap();
    for code in [None, Some(""), Some("  ")] {
        let mut request = content(Kind::TwoFactorCode, Language::English, "Ada Lovelace");
        request.params.remove("code");
        if let Some(code) = code {
            request.params.insert("code".to_string(), code.to_string());
        }
        assert!(
            matches!(
                templates.render(&request),
                Err(RenderError::MissingParam("code"))
            ),
            "{code:?}"
        );
    }
    // A mail that shows no code needs none.
    let mut request = content(Kind::VerifyEmail, Language::English, "Ada Lovelace");
    request.params.remove("code");
    assert!(templates.render(&request).is_ok());
}

#[test]
fn durations_take_each_languages_plural_forms() {
    let say = |language, seconds| {
        Locale::load(language)
            .unwrap()
            .duration(Duration::from_secs(seconds))
    };
    assert_eq!(say(Language::English, 3600), "1 hour");
    assert_eq!(say(Language::English, 86400), "24 hours");
    assert_eq!(say(Language::English, 900), "15 minutes");
    assert_eq!(say(Language::English, 61), "2 minutes");
    assert_eq!(say(Language::Russian, 3600), "1 час");
    assert_eq!(say(Language::Russian, 7200), "2 часа");
    assert_eq!(say(Language::Russian, 18000), "5 часов");
    assert_eq!(say(Language::Russian, 21 * 60), "21 минуту");
    assert_eq!(say(Language::Russian, 11 * 60), "11 минут");
    assert_eq!(say(Language::Ukrainian, 86400), "24 години");
    assert_eq!(say(Language::Polish, 60), "1 minutę");
    assert_eq!(say(Language::Polish, 22 * 60), "22 minuty");
    assert_eq!(say(Language::Polish, 21 * 60), "21 minut");
    assert_eq!(say(Language::French, 3600), "1 heure");
    assert_eq!(say(Language::German, 30 * 60), "30 Minuten");
    assert_eq!(say(Language::Turkish, 3600), "1 saat");
    assert_eq!(say(Language::Spanish, 0), "1 minuto");
}

/// How the catalogue says one hour (what [`content`]'s links last).
fn mail_duration(language: Language) -> String {
    Locale::load(language)
        .unwrap()
        .duration(Duration::from_secs(3600))
}

#[test]
fn a_ban_says_when_it_ends_only_when_it_has_an_end() {
    let templates = Templates::new().unwrap();
    for language in Language::ALL {
        let temporary = templates
            .render(&content(Kind::BannedByAdmin, language, "Ada Lovelace"))
            .unwrap();
        assert!(
            temporary.text.contains(&mail_duration(language)),
            "{}: {}",
            language.tag(),
            temporary.text
        );
        let permanent = templates
            .render(&Content {
                expires_in: Duration::ZERO,
                ..content(Kind::BannedByAdmin, language, "Ada Lovelace")
            })
            .unwrap();
        let says_end = Locale::load(language)
            .unwrap()
            .mail(Kind::BannedByAdmin)
            .expires
            .clone()
            .unwrap();
        // The sentence's longest stretch of its own words (around the duration).
        let end_words = says_end
            .split("{expires}")
            .map(str::trim)
            .max_by_key(|part| part.len())
            .unwrap();
        assert!(
            !end_words.is_empty() && !permanent.text.contains(end_words),
            "{}: a ban with no end says it ends: {}",
            language.tag(),
            permanent.text
        );
    }
}
