//! The real binary: `passback serve` prints its address, and SIGTERM lets an in-flight request
//! finish before the process exits cleanly.
#![cfg(unix)]

mod common;

use common::http::{parse_reply, request};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

#[test]
fn sigterm_finishes_the_in_flight_request_then_exits_zero() {
    let mut served = common::serve(&[]);

    let doc = "```open-question\n{\"version\":\"1\",\"question\":\"Why?\"}\n```\n";
    let raw = request("POST", "/v1/validate", &[], doc.as_bytes());
    // The head and the first five bytes of the body before the signal, the rest after.
    let (before, after) = raw.split_at(raw.len() - doc.len() + 5);
    let mut s = TcpStream::connect(&served.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(before).expect("head and part of the body");
    std::thread::sleep(Duration::from_millis(200));

    served.terminate();
    std::thread::sleep(Duration::from_millis(200));
    s.write_all(after).expect("rest of the body");
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).expect("the reply");
    let reply = parse_reply(&reply);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(reply.text().contains("\"outcome\":\"valid\""));

    let status = served.child.wait().expect("the process exits");
    assert!(status.success(), "exit status {status}");
}
