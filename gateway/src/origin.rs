//! Which origins and redirect targets are trusted (better-auth §7.1–7.2): the Origin check on
//! cookie-bearing POSTs, the form-CSRF rule of sign-in/sign-up, and `callbackURL`-style fields
//! that must be relative or on a trusted origin.

use axum::http::HeaderMap;
use gatehouse_kit::errors::{ErrorCode, base};

/// The trusted origins: exact origins (`https://app.example.com`) or wildcard patterns
/// (`https://*.example.com`, `*.example.com`).
#[derive(Clone, Debug)]
pub struct TrustedOrigins {
    patterns: Vec<String>,
}

impl TrustedOrigins {
    pub fn new(patterns: Vec<String>) -> Self {
        let patterns = patterns
            .into_iter()
            .map(|p| p.trim_end_matches('/').to_string())
            .collect();
        Self { patterns }
    }

    /// An absolute URL (or bare origin) whose origin is trusted.
    pub fn trusts_url(&self, candidate: &str) -> bool {
        let Ok(parsed) = url::Url::parse(candidate) else {
            return false;
        };
        let origin = parsed.origin().ascii_serialization();
        let host = parsed.host_str().unwrap_or_default();
        self.patterns.iter().any(|pattern| {
            if pattern.contains('*') || pattern.contains('?') {
                if pattern.contains("://") {
                    wildcard_match(pattern, &origin)
                } else {
                    // A host pattern says nothing about the scheme: only web schemes qualify,
                    // never `javascript://trusted.host/…`.
                    matches!(parsed.scheme(), "http" | "https") && wildcard_match(pattern, host)
                }
            } else {
                pattern == &origin
            }
        })
    }

    /// A redirect target: a safe relative path, or an absolute URL on a trusted origin.
    pub fn trusts_redirect(&self, target: &str) -> bool {
        if target.starts_with('/') {
            is_safe_relative_path(target)
        } else {
            self.trusts_url(target)
        }
    }
}

/// `^/(?!/|\\|%2f|%5c)[\w\-.+/@]*(?:\?[\w\-.+/=&%@]*)?$`, written out.
pub fn is_safe_relative_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    let lower = rest.to_ascii_lowercase();
    if rest.starts_with('/')
        || rest.starts_with('\\')
        || lower.starts_with("%2f")
        || lower.starts_with("%5c")
    {
        return false;
    }
    let (path_part, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    path_part.chars().all(|c| word(c) || "-.+/@".contains(c))
        && query.is_none_or(|q| q.chars().all(|c| word(c) || "-.+/=&%@".contains(c)))
}

/// Glob match where `*` is any run without `/` or `\`, `**` any run, `?` one such character.
fn wildcard_match(pattern: &str, text: &str) -> bool {
    fn go(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') if p.get(1) == Some(&'*') => (0..=t.len()).any(|i| go(&p[2..], &t[i..])),
            Some('*') => {
                for i in 0..=t.len() {
                    if go(&p[1..], &t[i..]) {
                        return true;
                    }
                    if i < t.len() && (t[i] == '/' || t[i] == '\\') {
                        break;
                    }
                }
                false
            }
            Some('?') => t.first().is_some_and(|c| *c != '/' && *c != '\\') && go(&p[1..], &t[1..]),
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// Check A: the request's Origin (or Referer) must be trusted.
fn check_origin_header(headers: &HeaderMap, trusted: &TrustedOrigins) -> Result<(), ErrorCode> {
    let origin = header(headers, "origin").or_else(|| header(headers, "referer"));
    match origin {
        None | Some("null") => Err(base::MISSING_OR_NULL_ORIGIN),
        Some(origin) if trusted.trusts_url(origin) => Ok(()),
        Some(_) => Err(base::INVALID_ORIGIN),
    }
}

/// The CSRF rules for a state-changing request. `form_post` marks sign-in/sign-up, which
/// browsers can reach with a plain form and so are checked even without cookies.
pub fn check_request(
    headers: &HeaderMap,
    trusted: &TrustedOrigins,
    form_post: bool,
) -> Result<(), ErrorCode> {
    if headers.contains_key("cookie") {
        return check_origin_header(headers, trusted);
    }
    if !form_post {
        return Ok(());
    }
    let site = header(headers, "sec-fetch-site");
    let mode = header(headers, "sec-fetch-mode");
    let dest = header(headers, "sec-fetch-dest");
    if site.is_some() || mode.is_some() || dest.is_some() {
        if site == Some("cross-site") && mode == Some("navigate") {
            return Err(base::CROSS_SITE_NAVIGATION_LOGIN_BLOCKED);
        }
        return check_origin_header(headers, trusted);
    }
    if header(headers, "origin").is_some() || header(headers, "referer").is_some() {
        return check_origin_header(headers, trusted);
    }
    // No browser signals at all: a server-to-server or command-line caller.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trusted() -> TrustedOrigins {
        TrustedOrigins::new(vec![
            "http://localhost:3000".into(),
            "https://*.example.com".into(),
            "*.partner.io".into(),
        ])
    }

    #[test]
    fn origins_match_exactly_or_by_wildcard() {
        let t = trusted();
        assert!(t.trusts_url("http://localhost:3000"));
        assert!(t.trusts_url("http://localhost:3000/some/page?x=1"));
        assert!(!t.trusts_url("http://localhost:3001"));
        assert!(!t.trusts_url("https://localhost:3000"));
        assert!(t.trusts_url("https://app.example.com"));
        assert!(!t.trusts_url("http://app.example.com"));
        assert!(!t.trusts_url("https://example.com.evil.net"));
        assert!(t.trusts_url("http://a.partner.io/x"));
        assert!(
            !t.trusts_url("javascript://a.partner.io/%0aalert(1)"),
            "host patterns need a web scheme"
        );
        assert!(!t.trusts_redirect("intent://a.partner.io/x"));
        assert!(!t.trusts_url("not a url"));
    }

    #[test]
    fn relative_redirects_must_be_plain_paths() {
        let t = trusted();
        for ok in [
            "/",
            "/dashboard",
            "/dashboard?tab=1&x=%20",
            "/a/b-c_d.e+f@g",
        ] {
            assert!(t.trusts_redirect(ok), "{ok}");
        }
        for bad in [
            "//evil.com",
            "/\\evil.com",
            "/%2fevil.com",
            "/%5Cevil",
            "/a#frag",
            "/a b",
            "https://evil.com/x",
            "javascript:alert(1)",
        ] {
            assert!(!t.trusts_redirect(bad), "{bad}");
        }
    }

    #[test]
    fn cookie_bearing_posts_need_a_trusted_origin() {
        let t = trusted();
        let mut h = HeaderMap::new();
        h.insert("cookie", "a=b".parse().unwrap());
        assert_eq!(
            check_request(&h, &t, false),
            Err(base::MISSING_OR_NULL_ORIGIN)
        );
        h.insert("origin", "null".parse().unwrap());
        assert_eq!(
            check_request(&h, &t, false),
            Err(base::MISSING_OR_NULL_ORIGIN)
        );
        h.insert("origin", "http://evil.com".parse().unwrap());
        assert_eq!(check_request(&h, &t, false), Err(base::INVALID_ORIGIN));
        h.insert("origin", "http://localhost:3000".parse().unwrap());
        assert_eq!(check_request(&h, &t, false), Ok(()));
    }

    #[test]
    fn form_posts_follow_the_fetch_metadata_rules() {
        let t = trusted();
        assert_eq!(check_request(&HeaderMap::new(), &t, true), Ok(()));
        let mut h = HeaderMap::new();
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        h.insert("sec-fetch-mode", "navigate".parse().unwrap());
        assert_eq!(
            check_request(&h, &t, true),
            Err(base::CROSS_SITE_NAVIGATION_LOGIN_BLOCKED)
        );
        let mut h = HeaderMap::new();
        h.insert("origin", "http://evil.com".parse().unwrap());
        assert_eq!(check_request(&h, &t, true), Err(base::INVALID_ORIGIN));
        assert_eq!(check_request(&h, &t, false), Ok(()));
    }
}
