//! `passback keys`: the sender keys routing takes (`Authorization: Bearer pbk_…`), made, listed
//! and revoked in the store `passback serve` uses.

use super::Command;
use super::args::Args;
use super::shared::write_out;
use super::usage::{Flag, Usage};
use passback_server::store::{self, KeyAdded, Lookup, NewKey, Store, StoreConfig};
use std::time::Duration;

pub(super) const COMMAND: Command = Command {
    name: "keys",
    summary: "make, list and revoke the sender keys routing takes",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &[
        "add NAME [--callback-url URL] | list | revoke NAME",
        "| rotate-secret NAME [--grace TIME]",
        "[--store sqlite:PATH|postgres://…]",
    ],
    about: "\
add NAME prints a new sender key, once: only its hash is kept, so copy it now. Senders send it
as Authorization: Bearer KEY when they route documents (POST /v1/documents, /mcp), list them
(GET /v1/documents) and open the documents they routed. list shows every key's name, when it
was made and whether it was revoked, never a key. revoke NAME stops the key at once; the
documents it routed stay, open to their own tokens.

add also says (on stderr) the key's webhook secret (whsec_…), which signs the webhooks of its
documents; the sender can read it again with GET /v1/keys/self. rotate-secret NAME replaces
that secret and prints the new one: deliveries from then on are signed with it and, for the
grace period (--grace, 24h by default), with the old one too, so the receiver can switch over.

A server listening on an address that is not loopback routes documents only for a key, unless
it runs with --open-routing.
",
    column: 20,
    flags: &[
        Flag {
            name: "store",
            value: "SPEC",
            about: "the store `passback serve` uses: sqlite:PATH (default sqlite:passback.db)\n\
                    or postgres://USER@HOST:PORT/DATABASE",
        },
        Flag {
            name: "callback-url",
            value: "URL",
            about: "with add: where the events of the key's documents are POSTed, signed\n\
                    (a document's own callback_url wins)",
        },
        Flag {
            name: "grace",
            value: "TIME",
            about: "with rotate-secret: how long the old secret signs beside the new one,\n\
                    such as 24h (the default), 90m or 0 (none)",
        },
    ],
    notes: "",
};

fn run(a: &Args) -> Result<i32, String> {
    let words: Vec<String> = a
        .positional
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let action = match words.as_slice() {
        [verb, name] if verb == "add" => Action::Add(checked_name(name)?),
        [verb, name] if verb == "revoke" => Action::Revoke(name.clone()),
        [verb, name] if verb == "rotate-secret" => Action::Rotate(name.clone()),
        [verb] if verb == "list" => Action::List,
        [verb] if verb == "add" || verb == "revoke" || verb == "rotate-secret" => {
            return Err(format!(
                "`keys {verb}` needs the key's NAME, such as `passback keys {verb} ci-bot`"
            ));
        }
        [] => {
            return Err(
                "`keys` needs what to do: add NAME, list or revoke NAME (or rotate-secret NAME; see `passback keys --help`)"
                    .into(),
            );
        }
        _ => {
            return Err(format!(
                "`keys` takes add NAME, list or revoke NAME (or rotate-secret NAME), not `{}` (see `passback keys --help`)",
                words.join(" ")
            ));
        }
    };
    let callback_url = match a.flag("callback-url")? {
        // Checked for its shape here; where it resolves to is checked at each delivery.
        Some(url) => Some(passback_server::webhooks::check_callback_url(url, true)?),
        None => None,
    };
    let grace = match a.flag("grace")? {
        Some(text) if !matches!(action, Action::Rotate(_)) => {
            return Err(format!(
                "--grace {text} is for rotate-secret, which keeps the old webhook secret signing that long; leave it out of `keys {}`",
                words.first().map_or("", String::as_str)
            ));
        }
        Some(text) => super::shared::grace(text)?,
        None => DEFAULT_GRACE,
    };
    let spec = a.flag("store")?.unwrap_or("sqlite:passback.db");
    let config = StoreConfig::parse(spec)?;
    let described = config.describe();
    let Some(store) = config.open(None) else {
        return Err(
            "keys are kept in the store, and --store off names none; give the --store `passback serve` uses (sqlite:PATH or postgres://…)"
                .into(),
        );
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        store
            .prepare()
            .await
            .map_err(|e| format!("--store {described}: {e}"))?;
        match action {
            Action::Add(name) => add(&*store, &name, callback_url, &described).await,
            Action::List => list(&*store, &described).await,
            Action::Revoke(name) => revoke(&*store, &name, &described).await,
            Action::Rotate(name) => rotate(&*store, &name, grace, &described).await,
        }
    })
}

enum Action {
    Add(String),
    List,
    Revoke(String),
    Rotate(String),
}

/// How long a rotated webhook secret signs beside the new one when `--grace` is not given.
const DEFAULT_GRACE: Duration = Duration::from_secs(24 * 3600);

async fn rotate(
    store: &dyn Store,
    name: &str,
    grace: Duration,
    described: &str,
) -> Result<i32, String> {
    let fail = |e: store::StoreError| format!("--store {described}: {e}");
    let secret = store::new_webhook_secret().map_err(fail)?;
    let previous_until = store::now().saturating_add(grace.as_millis() as store::Millis);
    match store
        .set_webhook_secret(name, &secret, previous_until)
        .await
        .map_err(fail)?
    {
        Lookup::Live(()) => {
            write_out(&secret)?;
            if grace.is_zero() {
                eprintln!(
                    "passback: the key `{name}` now signs its webhooks with the secret above (GET /v1/keys/self shows it); the old one no longer verifies new deliveries"
                );
            } else {
                eprintln!(
                    "passback: the key `{name}` now signs its webhooks with the secret above (GET /v1/keys/self shows it), and with the old one too until {}: switch the receiver over before then",
                    store::rfc3339(previous_until)
                );
            }
            Ok(0)
        }
        Lookup::Gone => Err(format!(
            "the key `{name}` was revoked; it sends no webhooks"
        )),
        Lookup::Unknown => Err(format!(
            "there is no key named `{name}` in {described}; `passback keys list` shows the keys there are"
        )),
    }
}

/// A key's name: 1 to 64 letters, digits, `.`, `-` or `_`, so it prints plainly in lists and
/// logs.
fn checked_name(name: &str) -> Result<String, String> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    if ok {
        Ok(name.to_string())
    } else {
        Err(format!(
            "a key's name is 1 to 64 letters, digits, `.`, `-` or `_`, such as ci-bot, not `{name}`"
        ))
    }
}

async fn add(
    store: &dyn Store,
    name: &str,
    callback_url: Option<String>,
    described: &str,
) -> Result<i32, String> {
    let fail = |e: store::StoreError| format!("--store {described}: {e}");
    let key = store::new_key().map_err(fail)?;
    let webhook_secret = store::new_webhook_secret().map_err(fail)?;
    let added = store
        .add_key(NewKey {
            id: store::random_secret(store::ID_BYTES).map_err(fail)?,
            name: name.to_string(),
            key_hash: store::key_hash(&key),
            created_at: store::now(),
            webhook_secret: webhook_secret.clone(),
            callback_url,
        })
        .await
        .map_err(fail)?;
    match added {
        KeyAdded::Added => {
            write_out(&key)?;
            eprintln!(
                "passback: the key `{name}` is above, shown only this once (only its hash is kept): give it to its sender, who sends it as Authorization: Bearer KEY\npassback: its webhooks are signed with {webhook_secret} (GET /v1/keys/self with the key shows it again)"
            );
            Ok(0)
        }
        KeyAdded::NameTaken => Err(format!(
            "a key named `{name}` exists already in {described} (a revoked key keeps its name); choose another name"
        )),
    }
}

async fn list(store: &dyn Store, described: &str) -> Result<i32, String> {
    let keys = store
        .keys()
        .await
        .map_err(|e| format!("--store {described}: {e}"))?;
    if keys.is_empty() {
        eprintln!("passback: {described} holds no keys; make one with `passback keys add NAME`");
        return Ok(0);
    }
    let width = keys.iter().map(|k| k.name.len()).max().unwrap_or(4).max(4);
    let mut text = format!("{:width$}  {:24}  STATUS\n", "NAME", "CREATED");
    for k in &keys {
        let status = match k.revoked_at {
            Some(at) => format!("revoked {}", store::rfc3339(at)),
            None => "live".into(),
        };
        text.push_str(&format!(
            "{:width$}  {:24}  {status}\n",
            k.name,
            store::rfc3339(k.created_at)
        ));
    }
    write_out(&text)?;
    Ok(0)
}

async fn revoke(store: &dyn Store, name: &str, described: &str) -> Result<i32, String> {
    match store
        .revoke_key(name, store::now())
        .await
        .map_err(|e| format!("--store {described}: {e}"))?
    {
        Lookup::Live(()) => {
            eprintln!(
                "passback: the key `{name}` is revoked; requests with it now get 401, and the documents it routed stay open to their own tokens"
            );
            Ok(0)
        }
        Lookup::Gone => {
            eprintln!("passback: the key `{name}` was revoked already");
            Ok(0)
        }
        Lookup::Unknown => Err(format!(
            "there is no key named `{name}` in {described}; `passback keys list` shows the keys there are"
        )),
    }
}
