//! Starting the server: in-process on port 0 ([`Server`]), or the real `passback serve` binary
//! where a test needs a process of its own, for its signals, its memory or its command line
//! ([`Served`], [`serve`]).

use super::http::{Reply, call, fetch};
use passback_server::{AppState, Config, run, serve as serve_state};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The server running in this process on a port of its own. It shuts down when dropped (its
/// stop signal goes with it), or when [`Server::stop`] asks and waits for it.
pub struct Server {
    pub addr: SocketAddr,
    /// `addr` as the `Host` requests name.
    host: String,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl Server {
    /// `run` with `config`, as `passback serve` runs it.
    pub async fn start(config: Config) -> Server {
        Server::spawn(|listener, stopped| run(listener, config, stopped)).await
    }

    /// Serves `state`, which the test keeps to reach inside (its render slots, say).
    pub async fn with_state(state: Arc<AppState>) -> Server {
        Server::spawn(|listener, stopped| serve_state(listener, state, stopped)).await
    }

    /// Binds port 0 and spawns `serve` on it, with the future that resolves on the stop signal.
    async fn spawn<F>(serve: impl FnOnce(TcpListener, Stopped) -> F) -> Server
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
        let addr = listener.local_addr().expect("bound address");
        let (stop, stopped) = oneshot::channel::<()>();
        let stopped = Box::pin(async {
            let _ = stopped.await;
        });
        Server {
            addr,
            host: addr.to_string(),
            stop: Some(stop),
            task: tokio::spawn(serve(listener, stopped)),
        }
    }

    /// Tells the server to stop taking connections, without waiting for it.
    pub fn begin_shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Stops the server and waits (20 s at most) for its in-flight requests to finish.
    pub async fn stop(mut self) {
        self.begin_shutdown();
        tokio::time::timeout(Duration::from_secs(20), self.task)
            .await
            .expect("server stops")
            .expect("server task ok");
    }

    /// One request, on its own connection (see [`fetch`]).
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl AsRef<[u8]>,
    ) -> Reply {
        fetch(&self.host, method, path, headers, body).await
    }

    /// A GET without headers or body.
    pub async fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[], b"").await
    }

    /// A POST without a content type (the routes read Markdown then).
    pub async fn post(&self, path: &str, body: impl AsRef<[u8]>) -> Reply {
        self.send("POST", path, &[], body).await
    }

    /// A POST of `body` as `content_type`.
    pub async fn post_as(&self, path: &str, content_type: &str, body: impl AsRef<[u8]>) -> Reply {
        self.send("POST", path, &[("content-type", content_type)], body)
            .await
    }

    /// A form POST as a browser without JavaScript sends it; `html` adds `accept: text/html`.
    pub async fn post_form(&self, path: &str, form: &str, html: bool) -> Reply {
        let mut headers = vec![("content-type", "application/x-www-form-urlencoded")];
        if html {
            headers.push(("accept", "text/html"));
        }
        self.send("POST", path, &headers, form).await
    }
}

/// Resolves when the server is told to stop (or its [`Server`] is dropped).
type Stopped = Pin<Box<dyn Future<Output = ()> + Send>>;

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

/// The built `passback` binary, as a command to give arguments to.
pub fn passback() -> Command {
    Command::new(env!("CARGO_BIN_EXE_passback"))
}

/// The flags of a `passback serve` that keeps no routed documents, so writes no file:
/// `--store off`, or none in a build without the store (which has no such flag).
pub const NO_STORE: &[&str] = if cfg!(feature = "store") {
    &["--store", "off"]
} else {
    &[]
};

/// Starts `passback serve --listen 127.0.0.1:0 {extra}` and waits for its listening line.
pub fn serve(extra: &[&str]) -> Served {
    Served::start(extra, Stdio::null())
}

impl Served {
    /// [`serve`] with its standard error going to `stderr` (a pipe nobody reads, say).
    pub fn start(extra: &[&str], stderr: Stdio) -> Served {
        let mut child = passback()
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(stderr)
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

    /// A GET without headers or body, from this thread (see [`call`] for any other request).
    pub fn get(&self, path: &str) -> Reply {
        call(&self.addr, "GET", path, &[], b"")
    }

    /// Sends the process SIGTERM, as a service manager stops it.
    pub fn terminate(&self) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(killed.success());
    }

    /// The process's peak resident memory (VmHWM) in KiB, or 0 when it cannot be read.
    pub fn peak_rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0)
    }
}
