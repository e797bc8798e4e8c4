//! Slow and idle clients cannot hold the gateway: header, request and idle timeouts and the
//! connection limit, seen from raw TCP clients.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::Stack;

fn gateway(stack: &Stack) -> String {
    stack
        .base
        .trim_start_matches("http://")
        .trim_end_matches("/api/auth")
        .to_string()
}

/// Reads until the peer closes; `None` if it is still open after `wait`.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> Option<Vec<u8>> {
    let mut received = Vec::new();
    let read = tokio::time::timeout(wait, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok().map(|()| received)
}

#[tokio::test]
async fn a_client_sending_one_header_byte_per_second_is_cut_off_while_others_are_served() {
    let stack = Stack::start(&[("HTTP_HEADER_TIMEOUT_MS", "1500")]).await;
    let mut slow = TcpStream::connect(gateway(&stack)).await.unwrap();
    let request =
        b"GET /api/auth/ok HTTP/1.1\r\nHost: localhost\r\nX-Padding: aaaaaaaaaaaa\r\n\r\n";
    let mut cut_after = None;
    for (sent, byte) in request.iter().enumerate() {
        if slow.write_all(&[*byte]).await.is_err() {
            cut_after = Some(sent);
            break;
        }
        // Others are served meanwhile.
        assert_eq!(stack.get("/ok", None).await.status, 200);
        let mut probe = [0u8; 1];
        match tokio::time::timeout(Duration::from_millis(1000), slow.read(&mut probe)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                cut_after = Some(sent + 1);
                break;
            }
            Ok(Ok(_)) => panic!("answered a request whose head never completed"),
            Err(_) => {}
        }
    }
    let cut_after = cut_after.expect("the slow client was disconnected");
    assert!(
        cut_after <= 4,
        "disconnected within the header timeout, after {cut_after} bytes (one per second)"
    );
}

#[tokio::test]
async fn idle_keep_alive_connections_are_closed() {
    let stack = Stack::start(&[("HTTP_IDLE_TIMEOUT_MS", "1000")]).await;
    let mut client = TcpStream::connect(gateway(&stack)).await.unwrap();
    client
        .write_all(b"GET /api/auth/ok HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let received = closed_within(&mut client, Duration::from_secs(10))
        .await
        .expect("closed after the idle timeout");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "served first: {text}");
}

#[tokio::test]
async fn a_body_that_never_arrives_gets_408_after_the_request_timeout() {
    let stack = Stack::start(&[("HTTP_REQUEST_TIMEOUT_MS", "1000")]).await;
    let mut client = TcpStream::connect(gateway(&stack)).await.unwrap();
    client
        .write_all(
            b"POST /api/auth/sign-in/email HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":",
        )
        .await
        .unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), client.read(&mut buf))
        .await
        .expect("answered")
        .unwrap();
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("REQUEST_TIMEOUT"), "{text}");
}

#[tokio::test]
async fn past_the_connection_limit_new_clients_wait_for_a_free_slot() {
    // A short idle timeout closes the test client's own pooled connection first.
    let stack = Stack::start(&[
        ("HTTP_MAX_CONNECTIONS", "2"),
        ("HTTP_IDLE_TIMEOUT_MS", "300"),
    ])
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let addr = gateway(&stack);
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(&addr).await.unwrap();
        stream
            .write_all(b"GET /api/auth/ok HTTP/1.1\r\n")
            .await
            .unwrap();
        held.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut third = TcpStream::connect(&addr).await.unwrap();
    third
        .write_all(b"GET /api/auth/ok HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let early = tokio::time::timeout(Duration::from_millis(700), third.read(&mut buf)).await;
    assert!(early.is_err(), "not served while both slots are taken");
    drop(held.pop());
    let n = tokio::time::timeout(Duration::from_secs(10), third.read(&mut buf))
        .await
        .expect("served once a slot is free")
        .unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn the_grpc_ports_give_a_preface_the_header_timeout_too() {
    let stack = Stack::start(&[("HTTP_HEADER_TIMEOUT_MS", "1000")]).await;
    for addr in [stack.identity_addr, stack.session_addr] {
        let mut silent = TcpStream::connect(addr).await.unwrap();
        assert!(
            closed_within(&mut silent, Duration::from_secs(10))
                .await
                .is_some(),
            "{addr}: a connection that never speaks is closed"
        );
        let mut partial = TcpStream::connect(addr).await.unwrap();
        partial.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
        assert!(
            closed_within(&mut partial, Duration::from_secs(10))
                .await
                .is_some(),
            "{addr}: a preface that never completes is cut off"
        );
    }
}

#[tokio::test]
async fn the_public_port_speaks_http1_only() {
    let stack = Stack::start(&[]).await;
    let mut h2c = TcpStream::connect(gateway(&stack)).await.unwrap();
    h2c.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    let answer = closed_within(&mut h2c, Duration::from_secs(10))
        .await
        .expect("closed");
    let text = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || text.starts_with("HTTP/1.1 4"),
        "no HTTP/2 session: {text:?}"
    );
}
