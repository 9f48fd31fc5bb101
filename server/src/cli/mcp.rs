//! `passback mcp`: the MCP tools for agents, on standard input and output.

use super::Command;
use super::args::Args;
use super::shared::{closed_retention, prepared_state, public_url, retention, store_key_file};
use super::usage::{Flag, Usage};

pub(super) const COMMAND: Command = Command {
    name: "mcp",
    summary: "serve the MCP tools for agents on standard input and output",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &[
        "[--store sqlite:PATH|postgres://…|off] [--public-url URL] [--retention TIME]",
        "[--closed-retention TIME] [--store-key-file PATH]",
    ],
    about: "\
An agent (an MCP client) starts this command and speaks MCP over its standard input and output;
log lines go to standard error. The tools: route_document, revise_document, list_documents,
list_responses, get_document, close_document, set_status (to reopen), delete_document,
list_events, validate_document and get_components_spec. Routed documents go to the store
`passback serve` uses, which serves their review links to readers: give both the same
--store. (`passback serve` also answers the same tools over streamable HTTP at /mcp.)
",
    column: 24,
    flags: &[
        Flag {
            name: "store",
            value: "SPEC",
            about: "where routed documents are kept: sqlite:PATH (default sqlite:passback.db;\n\
                    a file shared with `passback serve`), postgres://USER@HOST:PORT/DATABASE,\n\
                    or off (route_document and list_responses then say how to turn it on)",
        },
        Flag {
            name: "public-url",
            value: "URL",
            about: "the address of the `passback serve` readers open review links on\n\
                    (default http://127.0.0.1:8080, where it listens by default)",
        },
        Flag {
            name: "retention",
            value: "TIME",
            about: "how long a routed document may live: seconds, or a number with s, m, h or\n\
                    d (default 30d); give the server's --retention",
        },
        Flag {
            name: "closed-retention",
            value: "TIME",
            about: "how long a closed or expired document is kept before it is purged, as\n\
                    get_document's purge_at says (default 30d); give the server's\n\
                    --closed-retention",
        },
        Flag {
            name: "store-key-file",
            value: "PATH",
            about: "the keys routed documents and answers are sealed with at rest; give the\n\
                    server's --store-key-file",
        },
    ],
    notes: "",
};

fn run(a: &Args) -> Result<i32, String> {
    a.no_positional("no positional argument", "")?;
    let store = a.flag("store")?.unwrap_or("sqlite:passback.db");
    let mut config = passback_server::Config::default()
        .with_store(passback_server::store::StoreConfig::parse(store)?);
    if let Some(url) = a.flag("public-url")? {
        config = config.with_public_url(Some(public_url(url)?));
    }
    if let Some(time) = a.flag("retention")? {
        config = config.with_retention(retention(time)?);
    }
    if let Some(time) = a.flag("closed-retention")? {
        config = config.with_closed_retention(closed_retention(time)?);
    }
    if let Some(path) = a.flag("store-key-file")? {
        config = config.with_store_keys(Some(store_key_file(path)?));
    }
    // Standard output is the protocol's: the log goes to standard error, warnings only.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_max_level(tracing::Level::WARN)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let state = prepared_state(config).await?;
        passback_server::mcp::stdio(state, passback_server::shutdown_signal()).await
    });
    // Standard input's reader cannot be interrupted: exit without waiting for it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served?;
    Ok(0)
}
