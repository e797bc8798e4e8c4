//! Input rules shared by the gateway (which answers with better-auth's validation errors) and
//! the services (which never trust their callers).

/// An email address as better-auth's schema (Zod's `email()`) accepts it: a local part of
/// letters, digits and `_'+-.` (not starting with a dot, no `..`), `@`, then dot-separated
/// labels ending in a top-level domain of at least two letters.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_'+-.".contains(c));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && domain.len() <= 253
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
    local_ok && domain_ok
}

/// [`is_valid_email`] as a JSON Schema `pattern` (ECMA-262, which Rust's and Python's regular
/// expressions read the same way), for the OpenAPI document, beside `format: email`: that
/// format's own limits (RFC 5321: a local part of at most 64 characters, a domain of at most
/// 253) are the rest of the rule.
pub const EMAIL_PATTERN: &str =
    r"^[A-Za-z0-9_'+-]+(?:\.[A-Za-z0-9_'+-]+)*@(?:[A-Za-z0-9][A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}$";

/// Whether a name (of a user, an organization, a team) holds a control character: C0 (line
/// breaks, tabs, escape …), DEL or C1. Names go into mails, pages and logs, where a line
/// break or an escape sequence could pass for something the platform wrote.
pub fn has_control_characters(name: &str) -> bool {
    name.chars().any(char::is_control)
}

/// [`has_control_characters`] refused, as a JSON Schema `pattern` for the OpenAPI document.
pub const NO_CONTROL_CHARACTERS: &str = r"^[^\u0000-\u001F\u007F-\u009F]*$";

/// Whether an API key prefix is made of letters, digits, `_` and `-` only (the api-key
/// plugin's `^[a-zA-Z0-9_-]+$`).
pub fn is_key_prefix(prefix: &str) -> bool {
    !prefix.is_empty()
        && prefix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// [`is_key_prefix`] as a JSON Schema `pattern`.
pub const KEY_PREFIX: &str = r"^[a-zA-Z0-9_-]+$";
/// What a prefix that breaks [`KEY_PREFIX`] is told (better-auth's words).
pub const KEY_PREFIX_REFUSAL: &str =
    "Invalid prefix format, must be alphanumeric and contain only underscores and hyphens.";

/// The services' check of a name, for callers that do not come through the gateway (which
/// refuses first, in the same words): `VALIDATION_ERROR` naming `field`.
pub fn check_name(field: &str, name: &str) -> Result<(), crate::errors::Failure> {
    if has_control_characters(name) {
        return Err(crate::errors::base::VALIDATION_ERROR.with_message(format!(
            "[body.{field}] Invalid string: must not contain control characters"
        )));
    }
    Ok(())
}

/// A field that takes a string or a list of strings (roles, team ids), as a list. Anything
/// else — a number, an object, a list holding a non-string — is refused whole, in the words
/// better-auth's schema uses: `VALIDATION_ERROR`, `[body.<field>] Invalid input`. A caller
/// whose protocol has a code of its own for the field maps this one to it.
pub fn one_or_many(
    field: &str,
    value: &serde_json::Value,
) -> Result<Vec<String>, crate::errors::Failure> {
    use serde_json::Value;
    let strings = match value {
        Value::String(one) => Some(vec![one.clone()]),
        Value::Array(many) => many
            .iter()
            .map(|item| item.as_str().map(str::to_string))
            .collect(),
        _ => None,
    };
    strings.ok_or_else(|| {
        crate::errors::base::VALIDATION_ERROR.with_message(format!("[body.{field}] Invalid input"))
    })
}

/// How emails are stored and compared: trimmed and lower-cased.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_or_many_takes_a_string_or_a_list_of_strings_and_nothing_else() {
        use serde_json::json;
        assert_eq!(one_or_many("role", &json!("admin")).unwrap(), ["admin"]);
        assert_eq!(
            one_or_many("role", &json!(["admin", "user"])).unwrap(),
            ["admin", "user"]
        );
        assert!(one_or_many("role", &json!([])).unwrap().is_empty());
        for bad in [json!(5), json!(null), json!({"a": 1}), json!(["admin", 5])] {
            let failure = one_or_many("role", &bad).unwrap_err();
            assert_eq!(failure.message(), "[body.role] Invalid input", "{bad}");
        }
    }

    #[test]
    fn accepts_ordinary_addresses() {
        for ok in [
            "a@example.com",
            "Alice.B+tag@Mail.Example.co.uk",
            "o'neil@x-y.io",
        ] {
            assert!(is_valid_email(ok), "{ok}");
        }
    }

    #[test]
    fn rejects_malformed_addresses() {
        for bad in [
            "",
            "plain",
            "a@b",
            "a@b.c",
            "@example.com",
            "a@@example.com",
            ".a@example.com",
            "a..b@example.com",
            "a b@example.com",
            "a@-x.com",
            "a@example.c0m",
        ] {
            assert!(!is_valid_email(bad), "{bad}");
        }
    }

    #[test]
    fn names_with_control_characters_are_told_apart() {
        for bad in [
            "Acme\nInc",
            "Acme\r\nBcc: x@example.com",
            "tab\there",
            "\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\",
            "del\u{7f}",
            "c1\u{85}next line",
            "nul\0",
        ] {
            assert!(has_control_characters(bad), "{bad:?}");
        }
        for good in ["Acme Inc.", "Zoë & Co — ünïcode", "emoji 🎉", ""] {
            assert!(!has_control_characters(good), "{good:?}");
        }
    }

    #[test]
    fn the_patterns_say_what_the_rules_decide() {
        // The OpenAPI documents carry the patterns; the services decide with the functions.
        let email = regex::Regex::new(EMAIL_PATTERN).unwrap();
        for address in [
            "a@example.com",
            "Alice.B+tag@Mail.Example.co.uk",
            "o'neil@x-y.io",
            "x_y-z@a-.bc",
            "",
            "plain",
            "a@b",
            "a@b.c",
            "@example.com",
            "a@@example.com",
            ".a@example.com",
            "a.@example.com",
            "a..b@example.com",
            "a b@example.com",
            "a@-x.com",
            "a@example.c0m",
            "a#b@example.com",
            "a@exa_mple.com",
        ] {
            assert_eq!(
                email.is_match(address),
                is_valid_email(address),
                "{address:?}"
            );
        }
        let names = regex::Regex::new(NO_CONTROL_CHARACTERS).unwrap();
        for c in (0..=0x2FFFu32)
            .chain([0xFEFF, 0xFFFD, 0x1F389, 0x10FFFF])
            .filter_map(char::from_u32)
        {
            let name = format!("a{c}b");
            assert_eq!(
                names.is_match(&name),
                !has_control_characters(&name),
                "U+{:04X}",
                c as u32
            );
        }
    }
}
