//! `passback serve`: the HTTP service.

use super::Command;
use super::args::Args;
#[cfg(feature = "store")]
use super::shared::{closed_retention, retention, store_key_file};
use super::shared::{image_policy, prepared_state, public_url};
use super::usage::{Flag, Usage};
use std::io::Write;

pub(super) const COMMAND: Command = Command {
    name: "serve",
    summary: "run the HTTP service",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &[
        "[--listen ADDR] [--max-body BYTES] [--header-timeout SECS] [--request-timeout SECS]",
        "[--max-connections N] [--cache-entries N] [--cache-bytes BYTES] [--public-url URL]",
        "[--images same-origin|https|hosts:H,H|proxy:URL] [--image-proxy-key-file PATH]",
        #[cfg(feature = "store")]
        "[--store sqlite:PATH|postgres://…|off] [--retention TIME] [--max-responses N]",
        #[cfg(feature = "store")]
        "[--closed-retention TIME]",
        "[--body-timeout SECS] [--max-connections-per-client N] [--max-renders N]",
        "[--queue-timeout SECS] [--max-table-cells N] [--max-diagram-parts N]",
        "[--max-output-bytes BYTES] [--hash-secret TEXT] [--metrics-listen ADDR]",
        "[--cors-origin ORIGIN]…",
        #[cfg(feature = "store")]
        "[--route-limit N/min|N/h|off] [--store-key-file PATH]",
        #[cfg(feature = "store")]
        "[--open-routing | --require-keys] [--key-documents-per-hour N|off]",
        #[cfg(feature = "store")]
        "[--key-max-bytes BYTES|off]",
        #[cfg(feature = "store")]
        "[--max-long-polls N] [--long-polls-per-document N] [--long-polls-per-client N]",
        #[cfg(feature = "store")]
        "[--long-polls-per-key N]",
        #[cfg(feature = "store")]
        "[--answer-limit N/min|N/h|off] [--document-answer-limit N/min|N/h|off]",
        #[cfg(feature = "store")]
        "[--max-answer-bytes BYTES] [--webhook-allow-private]",
        #[cfg(feature = "store")]
        "[--trusted-proxies ADDR,NET/BITS,…]",
    ],
    about: "",
    column: 28,
    flags: &[
        Flag {
            name: "listen",
            value: "ADDR",
            about: "address and port to listen on (default 127.0.0.1:8080; port 0 picks one)",
        },
        Flag {
            name: "max-body",
            value: "BYTES",
            about: "largest request body (default 1048576, 1 MiB)",
        },
        Flag {
            name: "header-timeout",
            value: "SECS",
            about: "time a client has to send its request headers (default 10)",
        },
        Flag {
            name: "request-timeout",
            value: "SECS",
            about: "time one request may take, body and render included (default 30)",
        },
        Flag {
            name: "max-connections",
            value: "N",
            about: "connections served at once; more get 503 (default 1024)",
        },
        Flag {
            name: "cache-entries",
            value: "N",
            about: "rendered documents the cache keeps (default 4096)",
        },
        Flag {
            name: "cache-bytes",
            value: "BYTES",
            about: "bytes the cache keeps (default 67108864, 64 MiB)",
        },
        Flag {
            name: "public-url",
            value: "URL",
            about: "the server's address as mail clients and readers reach it: email\n\
                    previews link diagrams as PNG images from it instead of inline SVG,\n\
                    and review links of routed documents start with it",
        },
        Flag {
            name: "images",
            value: "POLICY",
            about: "which images from the web pages show: https (default, any host),\n\
                    hosts:a.example,b.example (only those), same-origin (none), or\n\
                    proxy:https://camo.example (every image through a camo-style proxy,\n\
                    signed with the key in --image-proxy-key-file)",
        },
        Flag {
            name: "image-proxy-key-file",
            value: "PATH",
            about: "the image proxy's HMAC key (the file's bytes, a trailing newline\n\
                    dropped), for --images proxy:URL",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "store",
            value: "SPEC",
            about: "where routed documents are kept: sqlite:PATH (default\n\
                    sqlite:passback.db, created with the first routed document),\n\
                    postgres://USER@HOST:PORT/DATABASE (replicas may share it), or off",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "retention",
            value: "TIME",
            about: "how long a routed document may live, and its tombstone after it is\n\
                    deleted: seconds, or a number with s, m, h or d (default 30d)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "closed-retention",
            value: "TIME",
            about: "how long a closed or expired document keeps its text and answers for its\n\
                    sender before they are purged, from when it stopped taking answers\n\
                    (default 30d)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "store-key-file",
            value: "PATH",
            about: "seal routed documents and answers at rest with the keys in PATH, one\n\
                    ID:BASE64 (32 bytes) per line; the first seals, all open (rotation)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "max-responses",
            value: "N",
            about: "responses one routed document takes at most (default 1000)",
        },
        Flag {
            name: "body-timeout",
            value: "SECS",
            about: "time a client has to send a request's body (default 10; then 408)",
        },
        Flag {
            name: "max-connections-per-client",
            value: "N",
            about: "connections one client address may hold (default 256)",
        },
        Flag {
            name: "max-renders",
            value: "N",
            about: "renders, validations and exports run at once (default: the cores)",
        },
        Flag {
            name: "queue-timeout",
            value: "SECS",
            about: "time a request waits for a render slot before a 503 with\n\
                    Retry-After (default 5)",
        },
        Flag {
            name: "max-table-cells",
            value: "N",
            about: "table cells one document may make, GFM's filled-in ones included\n\
                    (default 250000; also at most its length in bytes plus 4096)",
        },
        Flag {
            name: "max-diagram-parts",
            value: "N",
            about: "diagram nodes and edges with comment fields per document\n\
                    (default 20000; also at most a quarter of its length plus 4096)",
        },
        Flag {
            name: "max-output-bytes",
            value: "BYTES",
            about: "component markup per document (default 33554432, 32 MiB; also at\n\
                    most 64 bytes per byte of the document plus 1 MiB)",
        },
        Flag {
            name: "hash-secret",
            value: "TEXT",
            about: "the secret content hashes (ETags, /v1/render/{hash}) are keyed with;\n\
                    replicas behind one address need the same; without one, a random\n\
                    secret is drawn at start",
        },
        Flag {
            name: "cors-origin",
            value: "ORIGIN",
            about: "let pages from ORIGIN (https://app.example) call render, validate,\n\
                    answers and schema from the browser (CORS); repeat it for more, or\n\
                    set PASSBACK_CORS_ORIGIN to several, separated by spaces or commas.\n\
                    None by default: no CORS headers at all",
        },
        Flag {
            name: "metrics-listen",
            value: "ADDR",
            about: "serve /metrics on this address only (e.g. 127.0.0.1:9090), not on\n\
                    --listen",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "route-limit",
            value: "RATE",
            about: "documents one client address may route, N/min or N/h: a burst of N,\n\
                    then one per minute/N (hour/N); more get 429 (default off)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "open-routing",
            value: "",
            about: "route documents without a sender key on an address that is not\n\
                    loopback (by default such a server routes only for keys made\n\
                    with `passback keys add`; on loopback no key is needed)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "webhook-allow-private",
            value: "",
            about: "let callback URLs be http:// and reach loopback, private and link-local\n\
                    addresses (by default webhooks go only to public https:// receivers)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "trusted-proxies",
            value: "LIST",
            about: "reverse proxies (addresses, networks such as 10.0.0.0/8) whose\n\
                    X-Forwarded-For names the client: the per-client limits then count\n\
                    the address the proxy appended, not the proxy's (default: none)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "require-keys",
            value: "",
            about: "route documents only for a sender key on loopback too (for a server\n\
                    behind a reverse proxy that others reach)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "key-documents-per-hour",
            value: "N",
            about: "documents one sender key may route in any hour; more get 429\n\
                    with Retry-After (default 1000; off for no limit)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "key-max-bytes",
            value: "BYTES",
            about: "bytes one sender key's kept documents and their answers may take;\n\
                    routing more gets 429 (default 1073741824, 1 GiB; off for no limit)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "max-long-polls",
            value: "N",
            about: "long-polls (?wait=) waiting at once on the server; more get 429\n\
                    (default 256, or a quarter of --max-connections if that is less)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "long-polls-per-document",
            value: "N",
            about: "long-polls waiting at once on one document (default 8)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "long-polls-per-client",
            value: "N",
            about: "long-polls waiting at once from one client address (default 32)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "long-polls-per-key",
            value: "N",
            about: "long-polls waiting at once on the documents of one sender key\n\
                    (default 64)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "answer-limit",
            value: "RATE",
            about: "answers one client address may post to one document, N/min or N/h;\n\
                    more get 429 (default 10/min)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "document-answer-limit",
            value: "RATE",
            about: "answers one document takes from everyone, N/min or N/h; more get\n\
                    429 (default 60/min)",
        },
        #[cfg(feature = "store")]
        Flag {
            name: "max-answer-bytes",
            value: "BYTES",
            about: "largest answer as stored, comments and export included; more get\n\
                    413 (default 2097152, 2 MiB)",
        },
    ],
    notes: "",
};

fn run(a: &Args) -> Result<i32, String> {
    a.no_positional("no positional argument", "")?;
    let config = config(a)?;

    // The log never holds up a request: a full queue drops lines and counts them.
    tracing_subscriber::fmt()
        .with_writer(passback_server::log::stderr())
        .with_target(false)
        .init();
    // Renders are CPU-bound: more blocking threads than cores only queue inside the kernel
    // instead of in tokio, and every extra thread can bring the allocator another arena.
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(cores * 2)
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let metrics = match config.metrics_listen {
            Some(at) => Some(
                tokio::net::TcpListener::bind(at)
                    .await
                    .map_err(|e| format!("cannot listen on --metrics-listen {at}: {e}"))?,
            ),
            None => None,
        };
        let state = prepared_state(config).await?;
        let metrics_at = metrics.as_ref().and_then(|m| m.local_addr().ok());
        if let Some(metrics) = metrics {
            tokio::spawn(passback_server::serve_metrics(
                metrics,
                state.clone(),
                passback_server::shutdown_signal(),
            ));
        }
        #[cfg(feature = "store")]
        if state.routing.is_some() {
            if state.keys_required() {
                tracing::info!("routing needs a sender key (`passback keys add NAME`)");
            } else if !addr.ip().to_canonical().is_loopback() {
                tracing::warn!(
                    "--open-routing: anyone who reaches this address may route documents"
                );
            }
        }
        println!("passback: listening on http://{addr}");
        if let Some(at) = metrics_at {
            println!("passback: metrics on http://{at}/metrics");
        }
        let _ = std::io::stdout().flush();
        passback_server::serve(listener, state, passback_server::shutdown_signal()).await;
        Ok::<(), String>(())
    });
    // `run` has waited out the grace period; a render still running on the blocking pool
    // cannot be interrupted, and dropping the runtime would wait for it: exit without it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served?;
    Ok(0)
}

/// The server's configuration from the flags; the first mistake found is the one reported.
fn config(a: &Args) -> Result<passback_server::Config, String> {
    let mut config = passback_server::Config::default();
    if let Some(addr) = a.flag("listen")? {
        let addr = addr.parse().map_err(|_| {
            format!("--listen must be an address such as 127.0.0.1:8080, not `{addr}`")
        })?;
        config = config.with_listen(addr);
    }
    if let Some(n) = a.number::<usize>("max-body", "a number of bytes")? {
        config = config.with_max_body(at_least_one(n, "max-body")?);
    }
    if let Some(n) = a.number::<f64>("header-timeout", "a number of seconds")? {
        config = config.with_header_timeout(seconds(n, "header-timeout")?);
    }
    if let Some(n) = a.number::<f64>("request-timeout", "a number of seconds")? {
        config = config.with_request_timeout(seconds(n, "request-timeout")?);
    }
    if let Some(n) = a.number::<usize>("max-connections", "a whole number")? {
        config = config.with_max_connections(at_least_one(n, "max-connections")?);
    }
    let entries = a
        .number::<usize>("cache-entries", "a whole number")?
        .unwrap_or(config.cache.max_entries);
    let bytes = a
        .number::<usize>("cache-bytes", "a number of bytes")?
        .unwrap_or(config.cache.max_bytes);
    config = config.with_cache(passback_engine::CacheConfig::new(entries, bytes));
    if let Some(url) = a.flag("public-url")? {
        config = config.with_public_url(Some(public_url(url)?));
    }
    let key_file = a.flag("image-proxy-key-file")?;
    if let Some(policy) = a.flag("images")? {
        config = config.with_images(image_policy(policy, key_file)?);
    } else if key_file.is_some() {
        return Err("--image-proxy-key-file is the key of --images proxy:URL: give both".into());
    }
    #[cfg(feature = "store")]
    {
        let store = a.flag("store")?.unwrap_or("sqlite:passback.db");
        config = config.with_store(passback_server::store::StoreConfig::parse(store)?);
        if let Some(time) = a.flag("retention")? {
            config = config.with_retention(retention(time)?);
        }
        if let Some(time) = a.flag("closed-retention")? {
            config = config.with_closed_retention(closed_retention(time)?);
        }
        if let Some(path) = a.flag("store-key-file")? {
            config = config.with_store_keys(Some(store_key_file(path)?));
        }
        if let Some(n) = a.number::<u64>("max-responses", "a whole number")? {
            config = config.with_max_responses(at_least_one(n, "max-responses")?);
        }
        if let Some(list) = a.flag("trusted-proxies")? {
            config = config
                .with_trusted_proxies(passback_server::forwarded::TrustedProxies::parse(list)?);
        }
        if let Some(rate) = a.flag("route-limit")? {
            config = config.with_route_limit(passback_server::limit::parse_route_limit(rate)?);
        }
        let (open, required) = (
            a.flag_os("open-routing").is_some(),
            a.flag_os("require-keys").is_some(),
        );
        if open && required {
            return Err(
                "--open-routing routes without keys and --require-keys only with them; give one"
                    .into(),
            );
        }
        config = config
            .with_open_routing(open)
            .with_require_keys(required)
            .with_webhook_allow_private(a.flag_os("webhook-allow-private").is_some());
        if let Some(n) = count_or_off(a, "key-documents-per-hour", "a whole number")? {
            config = config.with_key_documents_per_hour(n);
        }
        if let Some(n) = count_or_off(a, "key-max-bytes", "a whole number of bytes")? {
            config = config.with_key_max_bytes(n);
        }
    }
    #[cfg(feature = "store")]
    {
        use passback_server::limit::{LongPollBudget, parse_rate};
        let default = LongPollBudget::default();
        let budget = LongPollBudget {
            total: match a.number::<usize>("max-long-polls", "a whole number")? {
                Some(n) => at_least_one(n, "max-long-polls")?,
                None => default.total.min(config.max_connections / 4).max(1),
            },
            per_document: match a.number::<usize>("long-polls-per-document", "a whole number")? {
                Some(n) => at_least_one(n, "long-polls-per-document")?,
                None => default.per_document,
            },
            per_client: match a.number::<usize>("long-polls-per-client", "a whole number")? {
                Some(n) => at_least_one(n, "long-polls-per-client")?,
                None => default.per_client,
            },
            per_key: match a.number::<usize>("long-polls-per-key", "a whole number")? {
                Some(n) => at_least_one(n, "long-polls-per-key")?,
                None => default.per_key,
            },
        };
        config = config.with_long_polls(budget);
        if let Some(rate) = a.flag("answer-limit")? {
            config = config.with_answer_limit(parse_rate(
                rate,
                "answer-limit",
                "answers per client and document",
            )?);
        }
        if let Some(rate) = a.flag("document-answer-limit")? {
            config = config.with_document_answer_limit(parse_rate(
                rate,
                "document-answer-limit",
                "answers per document",
            )?);
        }
        if let Some(n) = a.number::<usize>("max-answer-bytes", "a number of bytes")? {
            config = config.with_max_answer_bytes(at_least_one(n, "max-answer-bytes")?);
        }
    }
    if let Some(n) = a.number::<f64>("body-timeout", "a number of seconds")? {
        config = config.with_body_timeout(seconds(n, "body-timeout")?);
    }
    if let Some(n) = a.number::<usize>("max-connections-per-client", "a whole number")? {
        config =
            config.with_max_connections_per_client(at_least_one(n, "max-connections-per-client")?);
    }
    if let Some(n) = a.number::<usize>("max-renders", "a whole number")? {
        config = config.with_max_renders(at_least_one(n, "max-renders")?);
    }
    if let Some(n) = a.number::<f64>("queue-timeout", "a number of seconds")? {
        config = config.with_queue_timeout(seconds(n, "queue-timeout")?);
    }
    let caps = config.limits;
    config = config.with_limits(passback_engine::Limits::new(
        a.number::<usize>("max-table-cells", "a whole number")?
            .unwrap_or(caps.table_cells),
        a.number::<usize>("max-diagram-parts", "a whole number")?
            .unwrap_or(caps.diagram_parts),
        a.number::<usize>("max-output-bytes", "a number of bytes")?
            .unwrap_or(caps.output_bytes),
    ));
    if let Some(secret) = a.flag("hash-secret")? {
        if secret.is_empty() {
            return Err("--hash-secret must not be empty".into());
        }
        config = config.with_hash_secret(Some(passback_server::hash_secret_from(secret)));
    }
    // PASSBACK_CORS_ORIGIN arrives as one value holding several origins, separated by spaces or
    // commas; no origin holds either, so every value is split the same way.
    let origins: Vec<String> = a
        .flag_all("cors-origin")?
        .into_iter()
        .flat_map(|list| list.split([' ', ',', '\t', '\n']))
        .filter(|o| !o.is_empty())
        .map(str::to_string)
        .collect();
    config = config.with_cors_origins(&origins)?;
    if let Some(addr) = a.flag("metrics-listen")? {
        let addr = addr.parse().map_err(|_| {
            format!("--metrics-listen must be an address such as 127.0.0.1:9090, not `{addr}`")
        })?;
        config = config.with_metrics_listen(Some(addr));
    }
    Ok(config)
}

/// A flag that takes a count of at least 1 or `off`: `None` when it is not given, `Some(None)`
/// for `off`; the error says the count must be `what`.
#[cfg(feature = "store")]
fn count_or_off(a: &Args, name: &str, what: &str) -> Result<Option<Option<u64>>, String> {
    let count = |n: &str| {
        n.parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("--{name} must be {what}, at least 1, or off, not `{n}`"))
    };
    a.flag(name)?
        .map(|v| match v {
            "off" => Ok(None),
            n => count(n).map(Some),
        })
        .transpose()
}

/// A count that must not be zero.
fn at_least_one<T: PartialEq + From<u8>>(n: T, name: &str) -> Result<T, String> {
    if n == T::from(0) {
        Err(format!("--{name} must be at least 1"))
    } else {
        Ok(n)
    }
}

fn seconds(n: f64, name: &str) -> Result<std::time::Duration, String> {
    if n.is_finite() && n > 0.0 && n < 1e9 {
        Ok(std::time::Duration::from_secs_f64(n))
    } else {
        Err(format!("--{name} must be a positive number of seconds"))
    }
}
