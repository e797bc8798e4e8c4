//! Credentials kept out of logs and error messages.

/// Hides credentials in a URL (`postgres://user:pw@host/db` → `postgres://user:***@host/db`,
/// and `?password=…` → `?password=***`) so the effective configuration can be logged.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = match rest.find(['/', '?', '#']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{user}:***@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _))
                        if ["password", "secret", "token"]
                            .iter()
                            .any(|word| key.to_ascii_lowercase().contains(word)) =>
                    {
                        format!("{key}=***")
                    }
                    _ => pair.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_redacted() {
        assert_eq!(
            redact_url("amqp://guest:guest@127.0.0.1:5672/%2f"),
            "amqp://guest:***@127.0.0.1:5672/%2f"
        );
        assert_eq!(redact_url("memory://"), "memory://");
        assert_eq!(
            redact_url("postgres://u:p@ss@db/x?sslmode=require&password=hunter2"),
            "postgres://u:***@db/x?sslmode=require&password=***"
        );
    }
}
