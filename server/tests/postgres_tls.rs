//! PostgreSQL over TLS (`sslmode` and `sslrootcert` in the `--store` URL), against real servers:
//! the test database (`PASSBACK_TEST_POSTGRES`), and throwaway clusters this test makes with
//! `initdb`: one without TLS, and one with a CA and a server certificate from the `openssl`
//! command, `ssl = on` and a pg_hba.conf that refuses every connection without TLS. A machine
//! without `initdb` or `openssl` skips the throwaway clusters, saying so.

mod common;

use common::store::{Backend, runtime, with_query};
use passback_server::routing::{RouteOptions, Routing};
use passback_server::store::{Lookup, StoreConfig};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// Connects and migrates the store `url` names: `Ok` with its routing, or the error it gave.
fn open(url: &str) -> Result<Routing, String> {
    let store = StoreConfig::parse(url)?.open(None).expect("a store");
    runtime()
        .block_on(store.prepare())
        .map_err(|e| e.to_string())?;
    Ok(Routing::new(
        Arc::clone(&store),
        Duration::from_secs(3600),
        Duration::from_secs(3600),
        10,
    ))
}

/// Routes a document through `routing` and reads it back.
fn round_trip(routing: &Routing) {
    runtime().block_on(async {
        let routed = routing
            .route(
                "# Over TLS\n\nHello.\n".into(),
                "hash".into(),
                RouteOptions::default(),
            )
            .await
            .expect("route a document");
        match routing.document(&routed.id).await.expect("read it back") {
            Lookup::Live(doc) => assert_eq!(doc.markdown, "# Over TLS\n\nHello.\n"),
            _ => panic!("the routed document is not there"),
        }
    });
}

#[test]
fn every_sslmode_parses_and_a_bad_one_is_named() {
    for mode in ["disable", "prefer", "require"] {
        let url = format!("postgres://passback@db.internal/passback?sslmode={mode}");
        assert!(StoreConfig::parse(&url).is_ok(), "{mode}");
    }
    let e = StoreConfig::parse("postgres://db/x?sslmode=always").unwrap_err();
    assert!(
        e.starts_with("--store: sslmode must be disable, prefer, require or verify-full"),
        "{e}"
    );
    let e = StoreConfig::parse("postgres://db/x?sslmode=verify-full").unwrap_err();
    assert!(e.contains("needs sslrootcert=PATH"), "{e}");
    let e = StoreConfig::parse("postgres://db/x?sslmode=verify-full&sslrootcert=/no/ca.pem")
        .unwrap_err();
    assert!(e.contains("cannot read /no/ca.pem"), "{e}");
    let e = StoreConfig::parse("postgres://db/x?sslmode=require")
        .map(|c| c.describe())
        .unwrap();
    assert_eq!(e, "postgres (database x, TLS required)");
}

#[test]
fn the_test_database_is_reached_as_its_sslmode_says() {
    // A schema of the test's own, so the schema version of the database's public one (left
    // by any other build) does not matter.
    let Some(backend) = Backend::postgres() else {
        return;
    };
    let base = backend.spec();
    // TLS when the server offers it, plain otherwise: either way it connects.
    round_trip(&open(&with_query(&base, "sslmode=prefer")).expect("prefer connects"));
    round_trip(&open(&with_query(&base, "sslmode=disable")).expect("disable connects"));
}

#[test]
fn require_against_a_server_without_tls_is_refused_with_what_to_do() {
    let Some(cluster) = Cluster::start(false) else {
        return;
    };
    round_trip(&open(&cluster.url("127.0.0.1", "sslmode=prefer")).expect("prefer connects"));
    let e = open(&cluster.url("127.0.0.1", "sslmode=require"))
        .err()
        .expect("require is refused");
    assert!(e.contains("server does not support TLS"), "{e}");
    assert!(
        e.contains("turn on ssl in its postgresql.conf, or connect with sslmode=prefer or disable"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// Throwaway clusters

/// A PostgreSQL cluster in a temporary folder, stopped and removed when dropped.
struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
}

/// Runs `program args` (as the `postgres` user when this runs as root, as PostgreSQL will not
/// run as root) and panics with its output when it fails.
fn run(program: &Path, args: &[&str]) {
    let root = nix_is_root();
    let mut cmd = if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    let out = cmd.args(args).output().expect("run a PostgreSQL program");
    assert!(
        out.status.success(),
        "{} {args:?}: {}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn nix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA (`{name}.crt`, `{name}.key`) in `dir`.
fn make_ca(dir: &Path, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
        ],
    );
}

/// The PostgreSQL binaries' folder: `initdb` on the PATH, or Debian's newest.
fn pg_bin() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("initdb"))
            .find(|p| p.exists())
            .and_then(|p| std::fs::canonicalize(p).ok())
            .and_then(|p| p.parent().map(Path::to_path_buf))
    });
    on_path.or_else(|| {
        let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
            .filter(|b| b.join("initdb").exists())
            .collect();
        found.sort();
        found.pop()
    })
}

impl Cluster {
    /// Starts a cluster. With `tls`, it takes only TLS connections, its certificate signed by
    /// `ca.crt` in its folder for `localhost` and 127.0.0.1; without, it has no TLS at all.
    /// `None` when initdb or openssl is missing.
    fn start(tls: bool) -> Option<Cluster> {
        let Some(bin) = pg_bin() else {
            eprintln!("no initdb: skipping the TLS round trip");
            return None;
        };
        if Command::new("openssl").arg("version").output().is_err() {
            eprintln!("no openssl command: skipping the TLS round trip");
            return None;
        }
        // Under /tmp, which the postgres user can reach whatever TMPDIR says.
        let dir = PathBuf::from("/tmp").join(format!(
            "passback-tls-{}-{}",
            std::process::id(),
            if tls { "on" } else { "off" }
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let cluster = Cluster { dir, bin, port };
        let dir = &cluster.dir;
        make_ca(dir, "ca");
        make_ca(dir, "other-ca");
        openssl(
            dir,
            &[
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        );
        std::fs::write(
            dir.join("server.ext"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
        )
        .expect("write the extensions");
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.crt",
                "-days",
                "2",
                "-extfile",
                "server.ext",
            ],
        );
        if nix_is_root() {
            let ok = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(dir)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown the cluster's folder to postgres");
        }
        let data = dir.join("data");
        let data_s = data.to_str().expect("a UTF-8 path");
        run(
            &cluster.bin.join("initdb"),
            &["-D", data_s, "-A", "trust", "-U", "postgres", "--no-sync"],
        );
        run(
            Path::new("cp"),
            &[
                dir.join("server.crt").to_str().unwrap(),
                dir.join("server.key").to_str().unwrap(),
                data_s,
            ],
        );
        run(
            Path::new("chmod"),
            &["600", data.join("server.key").to_str().unwrap()],
        );
        let hba = if tls {
            "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n"
        } else {
            "local all all trust\nhost all all 127.0.0.1/32 trust\n"
        };
        std::fs::write(data.join("pg_hba.conf"), hba).expect("write pg_hba.conf");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c ssl={} -c fsync=off",
            cluster.port,
            dir.display(),
            if tls { "on" } else { "off" }
        );
        run(
            &cluster.bin.join("pg_ctl"),
            &[
                "-D",
                data_s,
                "-o",
                &options,
                "-l",
                dir.join("log").to_str().unwrap(),
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        Some(cluster)
    }

    fn url(&self, host: &str, query: &str) -> String {
        format!("postgres://postgres@{host}:{}/postgres?{query}", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let _ = std::panic::catch_unwind(|| {
            run(
                &self.bin.join("pg_ctl"),
                &[
                    "-D",
                    data.to_str().unwrap(),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
            )
        });
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn a_real_tls_round_trip_on_a_cluster_that_takes_only_tls() {
    let Some(cluster) = Cluster::start(true) else {
        return;
    };
    let ca = cluster.dir.join("ca.crt");
    let other = cluster.dir.join("other-ca.crt");
    // The cluster refuses plain connections: what works below went over TLS.
    let e = open(&cluster.url("127.0.0.1", "sslmode=disable"))
        .err()
        .expect("refused");
    assert!(e.contains("no encryption"), "{e}");
    for query in ["sslmode=require", "sslmode=prefer", ""] {
        let routing =
            open(&cluster.url("127.0.0.1", query)).unwrap_or_else(|e| panic!("{query}: {e}"));
        round_trip(&routing);
    }
    // The certificate checked against its CA, for the host it names (a name and an address).
    for host in ["localhost", "127.0.0.1"] {
        let url = cluster.url(
            host,
            &format!("sslmode=verify-full&sslrootcert={}", ca.display()),
        );
        round_trip(&open(&url).unwrap_or_else(|e| panic!("{host}: {e}")));
    }
    // Another CA: refused, saying why.
    let url = cluster.url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={}", other.display()),
    );
    let e = open(&url).err().expect("another CA is refused");
    assert!(e.contains("did not check out against sslrootcert"), "{e}");
}
