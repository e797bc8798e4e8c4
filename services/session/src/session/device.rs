//! A session's device as a person recognises it: the browser and the system its User-Agent
//! names ("Firefox, Windows"), not the version, which changes with every update and would make
//! each update a new device.

/// Browsers by the token that gives each away, most specific first (Edge and Opera also say
/// Chrome; Chrome also says Safari).
const BROWSERS: &[(&str, &str)] = &[
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser/", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS/", "Firefox"),
    ("CriOS/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
];

/// Systems, the same way (Android and iOS before the desktop systems they resemble).
const SYSTEMS: &[(&str, &str)] = &[
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Macintosh", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
];

/// "Browser, System"; a client that is no browser by its first product ("curl", "node");
/// `None` for an empty User-Agent (nothing to recognise a device by).
pub fn describe(user_agent: &str) -> Option<String> {
    let user_agent = user_agent.trim();
    if user_agent.is_empty() {
        return None;
    }
    let find = |table: &[(&str, &'static str)]| {
        table
            .iter()
            .find(|(token, _)| user_agent.contains(token))
            .map(|(_, name)| *name)
    };
    let product = || {
        let first = user_agent.split([' ', '/']).next().unwrap_or(user_agent);
        first.chars().take(40).collect::<String>()
    };
    Some(match (find(BROWSERS), find(SYSTEMS)) {
        (Some(browser), Some(system)) => format!("{browser}, {system}"),
        (Some(browser), None) => browser.to_string(),
        (None, Some(system)) => format!("{}, {system}", product()),
        (None, None) => product(),
    })
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn names_the_browser_and_the_system_not_the_version() {
        let chrome_linux = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
        let newer = chrome_linux.replace("131.0.0.0", "142.0.7444.59");
        assert_eq!(describe(chrome_linux).as_deref(), Some("Chrome, Linux"));
        assert_eq!(describe(chrome_linux), describe(&newer));
        let cases = [
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge, Windows",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
                "Firefox, Windows",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                "Safari, iOS",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
                "Safari, macOS",
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome, Android",
            ),
            ("curl/8.11.0", "curl"),
            ("node", "node"),
        ];
        for (user_agent, device) in cases {
            assert_eq!(
                describe(user_agent).as_deref(),
                Some(device),
                "{user_agent}"
            );
        }
        assert_eq!(describe("  "), None);
    }
}
