//! Shared by the test binaries that start the real `passback serve`.
// Each test binary compiles its own copy and uses only part of it.
#![allow(dead_code)]

pub mod http;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running `passback serve`, killed when dropped (also when a test panics).
pub struct Served {
    pub child: Child,
    /// The line it prints once listening: `passback: listening on http://…`.
    pub line: String,
    /// The `host:port` from that line.
    pub addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `passback serve --listen 127.0.0.1:0 {extra}` and waits for its listening line.
pub fn serve(extra: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_passback"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start passback serve");
    let stdout = child.stdout.take().expect("stdout");
    // Owned before the read, so a failed read still stops the process.
    let mut served = Served {
        child,
        line: String::new(),
        addr: String::new(),
    };
    BufReader::new(stdout)
        .read_line(&mut served.line)
        .expect("the listening line");
    served.addr = served
        .line
        .trim()
        .rsplit("http://")
        .next()
        .expect("an address")
        .to_string();
    served
}
