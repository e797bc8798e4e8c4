//! The client's IP address: from `x-forwarded-for` when it can be trusted (exactly one hop, or
//! hops walked right to left past `TRUSTED_PROXIES`), else the TCP peer. Used for rate-limit
//! keys and recorded on sessions.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::http::HeaderMap;

pub fn client_ip(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trusted_proxies: &[IpAddr],
) -> Option<IpAddr> {
    let forwarded = headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|list| from_forwarded(list, trusted_proxies));
    forwarded.or(peer.map(|p| p.ip())).map(canonical)
}

fn from_forwarded(list: &str, trusted_proxies: &[IpAddr]) -> Option<IpAddr> {
    let hops: Vec<IpAddr> = list
        .split(',')
        .map(|hop| hop.trim().parse::<IpAddr>())
        .collect::<Result<_, _>>()
        .ok()?;
    if trusted_proxies.is_empty() {
        // Without known proxies only a single hop is believable.
        return match hops.as_slice() {
            [only] => Some(*only),
            _ => None,
        };
    }
    hops.iter()
        .rev()
        .find(|hop| !trusted_proxies.contains(&canonical(**hop)))
        .copied()
}

/// IPv4-mapped IPv6 becomes IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// The rate-limit bucket of an address: IPv6 clients get one bucket per /64.
pub fn bucket(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0).to_string() + "/64"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    #[test]
    fn one_hop_is_trusted_many_are_not() {
        let peer: SocketAddr = "10.0.0.9:1234".parse().unwrap();
        assert_eq!(
            client_ip(&headers("1.2.3.4"), Some(peer), &[]),
            Some("1.2.3.4".parse().unwrap())
        );
        assert_eq!(
            client_ip(&headers("1.2.3.4, 5.6.7.8"), Some(peer), &[]),
            Some(peer.ip())
        );
        assert_eq!(
            client_ip(&headers("garbage"), Some(peer), &[]),
            Some(peer.ip())
        );
    }

    #[test]
    fn trusted_proxies_are_skipped_from_the_right() {
        let proxies = ["10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()];
        let ip = client_ip(
            &headers("9.9.9.9, 1.2.3.4, 10.0.0.1, 10.0.0.2"),
            None,
            &proxies,
        );
        assert_eq!(ip, Some("1.2.3.4".parse().unwrap()));
    }

    #[test]
    fn ipv6_is_bucketed_per_64_and_mapped_v4_unwrapped() {
        assert_eq!(
            bucket("2001:db8:1:2:3:4:5:6".parse().unwrap()),
            "2001:db8:1:2::/64"
        );
        let mapped = client_ip(&headers("::ffff:1.2.3.4"), None, &[]);
        assert_eq!(mapped, Some("1.2.3.4".parse().unwrap()));
    }
}
