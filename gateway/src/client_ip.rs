//! The client's IP address, decided once per request (by `extract::request_context`): the rate
//! limiter counts under it and a new session records it, so both always see the same address.
//!
//! - Without `TRUSTED_PROXIES` (the default) the TCP peer is the client and every forwarding
//!   header is ignored. better-auth believes a single-hop `x-forwarded-for`; that lets a client
//!   that reaches the server directly pick a new address, and so a fresh rate-limit bucket, on
//!   every request (ASVS 4.0 §11.1.4).
//! - With `TRUSTED_PROXIES`: the header counts only when a trusted proxy sent it, and its hops
//!   are walked right to left past trusted proxies to the first one that is not.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::str::FromStr;

use axum::http::HeaderMap;

/// This request's client address (`None` only when the server was started without peer
/// addresses, as in some tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientIp(pub Option<IpAddr>);

impl ClientIp {
    /// The rate-limit bucket: the address, or one shared bucket when it is unknown.
    pub fn bucket(self) -> String {
        self.0
            .map(bucket)
            .unwrap_or_else(|| "unknown-client".into())
    }

    /// As recorded on a session (empty when unknown, as better-auth stores it).
    pub fn recorded(self) -> String {
        self.0.map(|ip| ip.to_string()).unwrap_or_default()
    }
}

/// An address or network: `10.0.0.7`, `10.0.0.0/8`, `fd00::/8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, canonical(ip)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for IpNet {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let addr = canonical(addr.trim().parse::<IpAddr>().map_err(|e| e.to_string())?);
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.trim().parse::<u8>().map_err(|e| e.to_string())?,
            None => max,
        };
        if prefix > max {
            return Err(format!("prefix /{prefix} is longer than {max} bits"));
        }
        Ok(Self { addr, prefix })
    }
}

pub fn client_ip(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trusted_proxies: &[IpNet],
) -> Option<IpAddr> {
    let peer = peer.map(|p| canonical(p.ip()));
    let trusted = |ip: IpAddr| trusted_proxies.iter().any(|net| net.contains(ip));
    let hops = forwarded_hops(headers);
    if hops.is_empty() {
        return peer;
    }
    if !peer.is_some_and(trusted) {
        // Not from a proxy we know: the header is whatever the client wrote.
        return peer;
    }
    for hop in hops.iter().rev() {
        match hop {
            Some(ip) if trusted(*ip) => continue,
            Some(ip) => return Some(*ip),
            // An entry we cannot read: nothing to its left can be trusted.
            None => return peer,
        }
    }
    peer
}

/// Every `x-forwarded-for` entry, in order, across all header lines (proxies may add their own
/// line rather than extend the first). Entries may carry a port (`1.2.3.4:5678`, `[::1]:80`);
/// unreadable ones (`unknown`) are `None`.
/// Read byte-wise, entry by entry: a line holding one non-ASCII entry (which a client can add
/// to the left of what its proxy appends) must not make the proxy's own entries unreadable.
fn forwarded_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|line| line.as_bytes().split(|byte| *byte == b','))
        .map(|hop| std::str::from_utf8(hop).map(str::trim))
        .filter(|hop| hop.as_ref().map_or(true, |hop| !hop.is_empty()))
        .map(|hop| {
            let hop = hop.ok()?.trim_matches('"');
            hop.parse::<IpAddr>()
                .ok()
                .or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
                .map(canonical)
        })
        .collect()
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

/// The rate-limit bucket of an address. IPv6 clients get one bucket per /64: a /64 is the
/// smallest network one subscriber is given, so per-address buckets would let one client mint
/// 2^64 of them. The address is never one the client wrote (see the module), so this cannot be
/// used to choose buckets either.
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
    fn without_trusted_proxies_the_peer_is_the_client() {
        let peer: SocketAddr = "10.0.0.9:1234".parse().unwrap();
        for xff in ["1.2.3.4", "1.2.3.4, 5.6.7.8", "garbage"] {
            assert_eq!(
                client_ip(&headers(xff), Some(peer), &[]),
                Some(peer.ip()),
                "{xff}"
            );
        }
        assert_eq!(client_ip(&headers("1.2.3.4"), None, &[]), None);
    }

    #[test]
    fn trusted_proxies_are_skipped_from_the_right() {
        let proxies: Vec<IpNet> = vec!["10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()];
        let via_proxy: SocketAddr = "10.0.0.2:443".parse().unwrap();
        let ip = client_ip(
            &headers("9.9.9.9, 1.2.3.4, 10.0.0.1, 10.0.0.2"),
            Some(via_proxy),
            &proxies,
        );
        assert_eq!(ip, Some("1.2.3.4".parse().unwrap()));
    }

    #[test]
    fn with_known_proxies_a_direct_client_cannot_choose_its_address() {
        let proxies: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let direct: SocketAddr = "203.0.113.9:5000".parse().unwrap();
        let spoofed = client_ip(&headers("1.2.3.4"), Some(direct), &proxies);
        assert_eq!(spoofed, Some(direct.ip()), "the header is ignored");
        let proxied = client_ip(
            &headers("1.2.3.4"),
            Some("10.1.2.3:80".parse().unwrap()),
            &proxies,
        );
        assert_eq!(proxied, Some("1.2.3.4".parse().unwrap()));
    }

    #[test]
    fn every_header_line_counts_ports_are_dropped_and_garbage_stops_the_walk() {
        let proxies: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let proxy: SocketAddr = "10.0.0.5:80".parse().unwrap();
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", "6.6.6.6".parse().unwrap());
        h.append("x-forwarded-for", "1.2.3.4:5678, 10.0.0.9".parse().unwrap());
        assert_eq!(
            client_ip(&h, Some(proxy), &proxies),
            Some("1.2.3.4".parse().unwrap()),
            "the client's own line does not win"
        );
        assert_eq!(
            client_ip(&headers("[2001:db8::1]:443"), Some(proxy), &proxies),
            Some("2001:db8::1".parse().unwrap())
        );
        assert_eq!(
            client_ip(
                &headers("1.2.3.4, unknown, 10.0.0.9"),
                Some(proxy),
                &proxies
            ),
            Some(proxy.ip())
        );
    }

    #[test]
    fn a_client_written_non_ascii_entry_does_not_hide_the_proxys_entries() {
        let proxies: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let proxy: SocketAddr = "10.0.0.5:80".parse().unwrap();
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            axum::http::HeaderValue::from_bytes(b"\xff\xfe, 203.0.113.9").unwrap(),
        );
        assert_eq!(
            client_ip(&h, Some(proxy), &proxies),
            Some("203.0.113.9".parse().unwrap()),
            "the entry the proxy appended still counts"
        );
    }

    #[test]
    fn networks_parse_and_match() {
        let net: IpNet = "10.0.0.0/8".parse().unwrap();
        assert!(net.contains("10.255.1.2".parse().unwrap()));
        assert!(net.contains("::ffff:10.1.1.1".parse().unwrap()));
        assert!(!net.contains("11.0.0.1".parse().unwrap()));
        let v6: IpNet = "fd00::/8".parse().unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()));
        assert!(!v6.contains("fe80::1".parse().unwrap()));
        let all: IpNet = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains("8.8.8.8".parse().unwrap()));
        assert!("10.0.0.0/33".parse::<IpNet>().is_err());
        assert!("nonsense".parse::<IpNet>().is_err());
    }

    #[test]
    fn ipv6_is_bucketed_per_64_and_mapped_v4_unwrapped() {
        assert_eq!(
            bucket("2001:db8:1:2:3:4:5:6".parse().unwrap()),
            "2001:db8:1:2::/64"
        );
        let peer: SocketAddr = "[::ffff:1.2.3.4]:80".parse().unwrap();
        let mapped = client_ip(&HeaderMap::new(), Some(peer), &[]);
        assert_eq!(mapped, Some("1.2.3.4".parse().unwrap()));
    }
}
