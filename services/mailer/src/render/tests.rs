use super::*;

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
            // Every placeholder was filled.
            for part in [&mail.subject, &mail.text, &mail.html] {
                assert!(
                    !part.contains('{') && !part.contains('}'),
                    "{what}: placeholder left in {part}"
                );
            }
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
            // The line saying how long the link works, only where it stops working.
            let expiry = templates
                .render(&content(Kind::VerifyEmail, language, "Ada Lovelace"))
                .unwrap();
            let says_expiry = expiry
                .text
                .lines()
                .find(|line| line.contains(&mail_duration(language)))
                .map(str::to_string);
            if let Some(line) = says_expiry {
                assert_eq!(mail.text.contains(&line), kind.link_expires(), "{what}");
            }
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
