//! The real binary: `passback serve` prints its address, and SIGTERM lets an in-flight request
//! finish before the process exits cleanly.
#![cfg(unix)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

#[test]
fn sigterm_finishes_the_in_flight_request_then_exits_zero() {
    let mut served = common::serve(&[]);
    let addr = served.addr.clone();

    let doc = "```open-question\n{\"version\":\"1\",\"question\":\"Why?\"}\n```\n";
    let mut s = TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        s,
        "POST /v1/validate HTTP/1.1\r\nhost: t\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        doc.len()
    )
    .expect("head");
    s.write_all(&doc.as_bytes()[..5]).expect("part of the body");
    std::thread::sleep(Duration::from_millis(200));

    let killed = Command::new("kill")
        .args(["-TERM", &served.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(200));
    s.write_all(&doc.as_bytes()[5..]).expect("rest of the body");
    let mut reply = String::new();
    s.read_to_string(&mut reply).expect("the reply");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"outcome\":\"valid\""));

    let status = served.child.wait().expect("the process exits");
    assert!(status.success(), "exit status {status}");
}
