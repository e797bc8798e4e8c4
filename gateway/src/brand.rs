//! The operator's brand on the web app, without a rebuild: the product's name, a logo and an
//! accent colour (`BRAND_*`), served next to the app as `/brand.json` (read by the app's shell)
//! and `/brand.css` (linked after the theme, so the colour is there before the first paint).

use serde::Serialize;

use gatehouse_kit::config::ConfigError;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Brand {
    /// `BRAND_NAME` (default `Gatehouse`): the header's and the page titles' name.
    pub name: String,
    /// `BRAND_LOGO_URL`: an `https://`/`http://` address or a path on this origin, shown
    /// before the name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logo_url: Option<String>,
    /// `BRAND_ACCENT` and `BRAND_ACCENT_DARK` (`#rrggbb`): links and primary buttons, in the
    /// light and the dark scheme (the dark one defaults to the light one's).
    #[serde(skip)]
    pub accent: Option<Rgb>,
    #[serde(skip)]
    pub accent_dark: Option<Rgb>,
}

impl Default for Brand {
    fn default() -> Self {
        Self {
            name: "Gatehouse".into(),
            logo_url: None,
            accent: None,
            accent_dark: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(u8, u8, u8);

impl Rgb {
    /// `#rrggbb`, else the reason.
    pub fn parse(value: &str) -> Result<Self, &'static str> {
        let hex = value
            .trim()
            .strip_prefix('#')
            .filter(|h| h.len() == 6 && h.chars().all(|c| c.is_ascii_hexdigit()))
            .ok_or("a colour is #rrggbb")?;
        let byte = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).map_err(|_| "not hex");
        Ok(Self(byte(0)?, byte(2)?, byte(4)?))
    }

    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// WCAG's relative luminance.
    fn luminance(self) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(self.0) + 0.7152 * channel(self.1) + 0.0722 * channel(self.2)
    }

    /// Black or white, whichever reads better on this colour (the buttons' text).
    fn text_on(self) -> &'static str {
        let l = self.luminance();
        // Contrast with white (1.05 / (l + 0.05)) against contrast with black ((l + 0.05) / 0.05).
        if 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 {
            "#ffffff"
        } else {
            "#000000"
        }
    }
}

impl Brand {
    pub fn from_settings(
        name: &str,
        logo_url: &str,
        accent: &str,
        accent_dark: &str,
    ) -> Result<Self, ConfigError> {
        let invalid = |var: &str, value: &str, reason: &str| ConfigError::Invalid {
            name: var.into(),
            value: value.into(),
            reason: reason.into(),
        };
        let colour = |var: &str, value: &str| {
            let value = value.trim();
            (!value.is_empty())
                .then(|| Rgb::parse(value).map_err(|reason| invalid(var, value, reason)))
                .transpose()
        };
        let logo_url = logo_url.trim();
        let logo_ok = logo_url.starts_with("https://")
            || logo_url.starts_with("http://")
            || (logo_url.starts_with('/') && !logo_url.starts_with("//"));
        if !logo_url.is_empty() && (!logo_ok || logo_url.contains(['"', '\'', '<', '>', ' '])) {
            return Err(invalid(
                "BRAND_LOGO_URL",
                logo_url,
                "an http(s) address or a path on this origin",
            ));
        }
        let name = name.trim();
        let accent = colour("BRAND_ACCENT", accent)?;
        Ok(Self {
            name: if name.is_empty() { "Gatehouse" } else { name }.to_string(),
            logo_url: (!logo_url.is_empty()).then(|| logo_url.to_string()),
            accent,
            accent_dark: colour("BRAND_ACCENT_DARK", accent_dark)?.or(accent),
        })
    }

    /// The stylesheet: the accent over the theme's (nothing when none is set).
    pub fn css(&self) -> String {
        let rule = |c: Rgb| format!("--accent: {}; --accent-text: {};", c.hex(), c.text_on());
        let mut css = String::new();
        if let Some(accent) = self.accent {
            css.push_str(&format!(":root {{ {} }}\n", rule(accent)));
        }
        if let Some(dark) = self.accent_dark {
            css.push_str(&format!(
                "@media (prefers-color-scheme: dark) {{ :root {{ {} }} }}\n",
                rule(dark)
            ));
        }
        css
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_checked_and_their_text_reads() {
        let brand = Brand::from_settings(" Acme ", "https://cdn.acme.test/logo.svg", "#0F766E", "")
            .unwrap();
        assert_eq!(brand.name, "Acme");
        // The dark scheme takes the light one's colour when it has none of its own.
        assert_eq!(
            brand.css(),
            ":root { --accent: #0f766e; --accent-text: #ffffff; }\n\
             @media (prefers-color-scheme: dark) { :root { --accent: #0f766e; --accent-text: #ffffff; } }\n"
        );
        let pale = Brand::from_settings("", "", "#ffd43b", "#1f55c7").unwrap();
        assert_eq!(pale.name, "Gatehouse");
        assert!(
            pale.css()
                .contains("--accent: #ffd43b; --accent-text: #000000;")
        );
        assert!(
            pale.css()
                .contains("--accent: #1f55c7; --accent-text: #ffffff;")
        );
        assert_eq!(Brand::default().css(), "");
        for (accent, logo) in [
            ("teal", ""),
            ("#12345", ""),
            ("", "javascript:alert(1)"),
            ("", "//evil.test/x.png"),
            ("", "/logo.svg\" onerror=\"x"),
        ] {
            assert!(
                Brand::from_settings("", logo, accent, "").is_err(),
                "{accent} {logo}"
            );
        }
        let json = serde_json::to_value(Brand::from_settings("Acme", "/logo.svg", "", "").unwrap())
            .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "Acme", "logoUrl": "/logo.svg"})
        );
    }
}
