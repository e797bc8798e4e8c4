//! Where an endpoint may send us: http and https only, and never — unless an operator allowed
//! the range — to a private, loopback, link-local or otherwise internal address (issue 12;
//! Polar and Svix refuse the same). The address is judged when connecting: the HTTP client
//! resolves names through [`GuardedResolver`], which drops forbidden addresses, so a name that
//! resolves to a public address when registered and to an internal one later (DNS rebinding)
//! is refused at the attempt. A URL with a literal address never reaches the resolver, so
//! [`check_url`] judges it before every attempt too.
//!
//! What an attempt records of a refusal is [`UNREACHABLE`] whatever the cause — an internal
//! address, a name that resolves only to internal ones, a name that does not resolve — so the
//! event log an organization reads cannot be used to map the network it runs in (which names
//! exist inside it). The cause goes to the service's log.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Why a destination is refused, in words an endpoint's owner can act on.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Refused {
    #[error("Endpoint URL must be an absolute http or https URL")]
    NotHttp,
    #[error("Endpoint URL must not carry credentials")]
    Credentials,
    #[error("Endpoint URL points to a private, loopback or link-local address ({0})")]
    Internal(IpAddr),
}

/// What an attempt records when its destination was refused or did not resolve.
pub const UNREACHABLE: &str =
    "Endpoint host does not resolve to an address deliveries may be sent to";

/// The resolver's one failure: a name left with no permitted address, whether it resolved
/// only to forbidden ones or not at all. It reads as [`UNREACHABLE`]; why is logged.
#[derive(Debug, thiserror::Error)]
#[error("{UNREACHABLE}")]
pub struct Unreachable;

/// The operator's exceptions ([`crate::config::FanOutConfig::allowed_networks`]).
#[derive(Clone, Debug, Default)]
pub struct Policy {
    pub allowed: Vec<IpNet>,
}

impl Policy {
    /// Whether an attempt may connect to `ip`.
    pub fn permits(&self, ip: IpAddr) -> bool {
        !is_internal(ip) || self.allowed.iter().any(|net| net.contains(&ip))
    }
}

/// Addresses that are not the public internet: what a request from inside the cluster must
/// not be steered to.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal_v4(v4);
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (first & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
                || v6.segments()[..6] == [0, 0, 0, 0, 0, 0] // IPv4-compatible ::a.b.c.d
                // NAT64, 64:ff9b::/96 and the local-use 64:ff9b:1::/48: they embed any IPv4
                // address, so they are refused whole rather than judged by it.
                || (v6.segments()[0] == 0x64 && v6.segments()[1] == 0xff9b)
                || (first == 0x2001 && v6.segments()[1] == 0) // Teredo 2001::/32 tunnels to IPv4
                || (first == 0x2001 && v6.segments()[1] == 0x0db8) // documentation
                || first == 0x2002 // 6to4 embeds any IPv4 address
        }
    }
}

fn is_internal_v4(v4: Ipv4Addr) -> bool {
    let [a, b, ..] = v4.octets();
    v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT 100.64.0.0/10
        || (a == 192 && b == 0 && v4.octets()[2] == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking 198.18.0.0/15
        || a >= 240 // reserved
}

/// Parses and judges an endpoint URL as far as it can without resolving names: the scheme,
/// no credentials, and a literal address's range.
pub fn check_url(raw: &str, policy: &Policy) -> Result<Url, Refused> {
    let url = Url::parse(raw).map_err(|_| Refused::NotHttp)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refused::NotHttp);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refused::Credentials);
    }
    let ip = match url.host() {
        None => return Err(Refused::NotHttp),
        Some(Host::Domain(_)) => return Ok(url),
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
    };
    if policy.permits(ip) {
        Ok(url)
    } else {
        Err(Refused::Internal(ip))
    }
}

/// The system resolver, keeping only the addresses the policy permits; a name left with none
/// fails to resolve, so the attempt fails before any connection is made.
pub struct GuardedResolver {
    policy: Arc<Policy>,
}

impl GuardedResolver {
    pub fn new(policy: Arc<Policy>) -> Self {
        Self { policy }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            // Port 0: reqwest puts the URL's port in.
            let found: Vec<SocketAddr> = match tokio::net::lookup_host((host.as_str(), 0)).await {
                Ok(found) => found.collect(),
                Err(error) => {
                    tracing::info!(%host, %error, "an endpoint's host does not resolve");
                    return Err(Unreachable.into());
                }
            };
            let permitted: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|addr| policy.permits(addr.ip()))
                .collect();
            if permitted.is_empty() {
                tracing::info!(%host, ?found, "an endpoint's host resolves only to internal addresses");
                return Err(Unreachable.into());
            }
            let addrs: Addrs = Box::new(permitted.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_ranges_are_refused_and_public_ones_pass() {
        for internal in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b::808:808",
            "64:ff9b:1::a00:1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2002:a00:1::",
        ] {
            let ip: IpAddr = internal.parse().unwrap();
            assert!(is_internal(ip), "{internal}");
        }
        for public in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"] {
            let ip: IpAddr = public.parse().unwrap();
            assert!(!is_internal(ip), "{public}");
        }
    }

    #[test]
    fn urls_are_judged_by_scheme_credentials_and_literal_address() {
        let strict = Policy::default();
        assert!(check_url("https://hooks.example.com/in", &strict).is_ok());
        assert_eq!(
            check_url("ftp://example.com/", &strict),
            Err(Refused::NotHttp)
        );
        assert_eq!(check_url("not a url", &strict), Err(Refused::NotHttp));
        assert_eq!(
            check_url("https://user:pw@example.com/", &strict),
            Err(Refused::Credentials)
        );
        assert_eq!(
            check_url("http://127.0.0.1:8080/", &strict),
            Err(Refused::Internal("127.0.0.1".parse().unwrap()))
        );
        assert!(matches!(
            check_url("http://[::1]/", &strict),
            Err(Refused::Internal(_))
        ));
        let loopback_allowed = Policy {
            allowed: vec!["127.0.0.0/8".parse().unwrap()],
        };
        assert!(check_url("http://127.0.0.1:8080/", &loopback_allowed).is_ok());
        assert!(check_url("http://10.0.0.1/", &loopback_allowed).is_err());
    }

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused_when_connecting_like_one_that_does_not_resolve()
     {
        let resolver = GuardedResolver::new(Arc::new(Policy::default()));
        for name in ["localhost", "gatehouse-nowhere.invalid"] {
            let refused = resolver
                .resolve(name.parse().unwrap())
                .await
                .err()
                .map(|e| e.to_string());
            assert_eq!(refused.as_deref(), Some(UNREACHABLE), "{name}");
        }
        let allowed = GuardedResolver::new(Arc::new(Policy {
            allowed: vec!["127.0.0.0/8".parse().unwrap(), "::1/128".parse().unwrap()],
        }));
        let addrs: Vec<SocketAddr> = allowed
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()) && !addrs.is_empty());
    }
}
