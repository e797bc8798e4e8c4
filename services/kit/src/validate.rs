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

/// How emails are stored and compared: trimmed and lower-cased.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
