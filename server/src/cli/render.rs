//! `passback render`: a document to HTML, text or a mail message.

use super::args::Args;
use super::shared::write_out;
use super::usage::{Flag, Usage};
use super::{Command, report};
use passback_engine::{Format, Options, Surface};

pub(super) const COMMAND: Command = Command {
    name: "render",
    summary: "render a document; diagnostics to stderr or into --format json",
    usage: USAGE,
    run,
};

const USAGE: Usage = Usage {
    synopsis: &[
        "[FILE|-] [--surface page|routed|email] [--format fragment|page|json|text|eml]",
        "[--answers-action URL] [--respond-url URL] [--asset-base URL] [--link-base URL]",
    ],
    about: "",
    column: 39,
    flags: &[
        Flag {
            name: "surface",
            value: "page|routed|email",
            about: "page: forms, an inert video facade (default);\n\
                    routed: as page, videos load on click;\n\
                    email: a static preview, no scripts or forms",
        },
        Flag {
            name: "format",
            value: "fragment|page|json|text|eml",
            about: "the HTML fragment (default), a whole HTML page,\n\
                    { html, hash, blocks, diagnostics }, plain text, or\n\
                    (email) a MIME message ready to send: text and HTML,\n\
                    diagrams and thumbnails attached; no From/To/Date",
        },
        Flag {
            name: "answers-action",
            value: "URL",
            about: "where the form posts (default /v1/answers; empty: no\n\
                    form action, the script's \"Copy answers\" exports)",
        },
        Flag {
            name: "respond-url",
            value: "URL",
            about: "the email surface's \"Respond\" link (absolute http(s))",
        },
        Flag {
            name: "asset-base",
            value: "URL",
            about: "URL prefix of the stylesheet and script (default /assets)",
        },
        Flag {
            name: "link-base",
            value: "URL",
            about: "email: where the document is published; relative links\n\
                    and images are made absolute against it (without it, a\n\
                    link that cannot work in a mail is kept as its words)",
        },
    ],
    notes: "FILE defaults to standard input.\n",
};

fn run(a: &Args) -> Result<i32, String> {
    let mut options = Options::default();
    if let Some(s) = a.flag("surface")? {
        options =
            options
                .with_surface(Surface::parse(s).ok_or_else(|| {
                    format!("--surface must be page, routed or email, not `{s}`")
                })?);
    }
    let eml = a.flag("format")? == Some("eml");
    if let Some(f) = a.flag("format")?.filter(|_| !eml) {
        options = options.with_format(Format::parse(f).ok_or_else(|| {
            format!("--format must be fragment, page, json, text or eml, not `{f}`")
        })?);
    }
    if eml && !options.surface.is_email() {
        return Err(
            "--format eml is a mail message: add --surface email (the other surfaces are web pages)"
                .into(),
        );
    }
    if let Some(url) = a.flag("link-base")? {
        if !passback_engine::is_respond_url(url) {
            return Err(format!(
                "--link-base must be an absolute http:// or https:// address with a host and no spaces, such as https://docs.example/decisions/ (not \"{url}\")"
            ));
        }
        options = options.with_link_base_url(Some(url.to_string()));
    }
    if let Some(url) = a.flag("answers-action")? {
        let action = passback_server::answers_action("--answers-action", url)?;
        options = options.with_answers_action(action);
    }
    if let Some(url) = a.flag("respond-url")? {
        if !passback_engine::is_respond_url(url) {
            return Err(format!(
                "--respond-url must be an absolute http:// or https:// address with a host and no spaces, not \"{url}\""
            ));
        }
        options = options.with_respond_url(Some(url.to_string()));
    }
    if let Some(base) = a.flag("asset-base")? {
        options = options.with_asset_base(base);
    }
    let (name, src) = a.input()?;
    if eml {
        let message = passback_server::eml::message(&src, &options, passback_server::eml::draw)?;
        report_to_stderr(&name, &src, &message.diagnostics);
        write_out(&String::from_utf8_lossy(&message.bytes))?;
        return Ok(0);
    }
    let rendered = passback_engine::render(&src, &options);
    if options.format != Format::Json {
        report_to_stderr(&name, &src, &rendered.diagnostics);
    }
    write_out(rendered.body())?;
    Ok(0)
}

/// The diagnostics on stderr as `validate --format text` prints them, a blank line between two.
fn report_to_stderr(name: &str, src: &str, diagnostics: &[passback_engine::Diagnostic]) {
    let colour = report::colour(&std::io::stderr());
    let text: Vec<String> = diagnostics
        .iter()
        .map(|d| report::diagnostic(name, src, d, colour))
        .collect();
    if !text.is_empty() {
        eprint!("{}", text.join("\n"));
    }
}
