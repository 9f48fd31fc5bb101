//! The conformance corpus of real READMEs and docs pages (`fixtures/github-readmes/`), one test
//! per document: what a reader sees on the page (default options) against a reference made the
//! way GitHub makes it: the whole document rendered by comrak with GitHub's extensions and its
//! raw HTML kept, then sanitized once, as a whole, with an allowlist modelled on GitHub's
//! (html-pipeline's `SanitizationFilter`).
//!
//! Both sides are read as a browser reads them (each is parsed and written out again by the same
//! HTML5 parser) and compared on what a reader sees: the text inside each `<details>` and whether
//! it starts open, the text inside each aligned wrapper, each image's source and alt, each alert's
//! kind and text, no front-matter text, and the visible words. Every difference by design is
//! listed with its reason in `fixtures/github-readmes/differences.json`; a listed difference that
//! no longer differs fails too, so the list stays true.

use passback_engine::{Options, render};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/github_corpus.rs"));

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/github-readmes")
}

// ---------------------------------------------------------------------------------------------
// The reference: GitHub's pipeline, modelled

/// The elements GitHub's sanitizer lets through (html-pipeline's default allowlist), with the
/// `<picture>`/`<source>` GitHub documents for images by colour scheme and the task lists'
/// checkboxes (added after sanitizing there).
const GITHUB_ELEMENTS: [&str; 62] = [
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "br",
    "b",
    "i",
    "strong",
    "em",
    "a",
    "pre",
    "code",
    "img",
    "tt",
    "div",
    "ins",
    "del",
    "sup",
    "sub",
    "p",
    "ol",
    "ul",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "blockquote",
    "dl",
    "dt",
    "dd",
    "kbd",
    "q",
    "samp",
    "var",
    "hr",
    "ruby",
    "rt",
    "rp",
    "li",
    "tr",
    "td",
    "th",
    "s",
    "strike",
    "summary",
    "details",
    "caption",
    "figure",
    "figcaption",
    "abbr",
    "bdo",
    "cite",
    "dfn",
    "mark",
    "small",
    "span",
    "time",
    "wbr",
    "picture",
    "source",
];

/// The attributes it allows on every element (`id` is prefixed there; here it does not matter).
const GITHUB_ATTRIBUTES: [&str; 72] = [
    "abbr",
    "accept",
    "accept-charset",
    "accesskey",
    "action",
    "align",
    "alt",
    "aria-describedby",
    "aria-hidden",
    "aria-label",
    "aria-labelledby",
    "axis",
    "border",
    "cellpadding",
    "cellspacing",
    "char",
    "charoff",
    "charset",
    "checked",
    "clear",
    "cols",
    "colspan",
    "color",
    "compact",
    "coords",
    "datetime",
    "dir",
    "disabled",
    "enctype",
    "for",
    "frame",
    "headers",
    "height",
    "hreflang",
    "hspace",
    "ismap",
    "label",
    "lang",
    "maxlength",
    "media",
    "method",
    "multiple",
    "name",
    "nohref",
    "noshade",
    "nowrap",
    "open",
    "progress",
    "prompt",
    "readonly",
    "rel",
    "rev",
    "role",
    "rows",
    "rowspan",
    "rules",
    "scope",
    "selected",
    "shape",
    "size",
    "span",
    "start",
    "summary",
    "tabindex",
    "title",
    "type",
    "usemap",
    "valign",
    "value",
    "width",
    "itemprop",
    "id",
];

const ALERT_KINDS: [&str; 5] = ["note", "tip", "important", "warning", "caution"];

/// The sanitizer of the reference, which also reads the engine's page for the comparison: the
/// allowlist above, links and images by GitHub's protocols (relative ones pass), the contents of
/// `script` and `style` removed, comments dropped. The alerts' classes (comrak's, which are
/// GitHub's, and the engine's) are kept so the comparison can find them.
fn sanitizer() -> &'static ammonia::Builder<'static> {
    static BUILDER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut tag_attributes: HashMap<&str, HashSet<&str>> = HashMap::new();
        tag_attributes.insert("a", HashSet::from(["href"]));
        tag_attributes.insert("img", HashSet::from(["src", "longdesc", "srcset"]));
        tag_attributes.insert("div", HashSet::from(["itemscope", "itemtype"]));
        for cited in ["blockquote", "del", "ins", "q"] {
            tag_attributes.insert(cited, HashSet::from(["cite"]));
        }
        tag_attributes.insert("source", HashSet::from(["srcset", "media", "type"]));
        let mut div_classes: HashSet<&str> = HashSet::from(["markdown-alert", "pb-alert"]);
        for kind in ALERT_KINDS {
            div_classes.insert(Box::leak(format!("markdown-alert-{kind}").into_boxed_str()));
            div_classes.insert(Box::leak(format!("pb-alert-{kind}").into_boxed_str()));
        }
        let mut classes: HashMap<&str, HashSet<&str>> = HashMap::new();
        classes.insert("div", div_classes);
        let mut b = ammonia::Builder::empty();
        b.tags(GITHUB_ELEMENTS.iter().copied().chain(["input"]).collect())
            .generic_attributes(GITHUB_ATTRIBUTES.iter().copied().collect())
            .tag_attributes(tag_attributes)
            .allowed_classes(classes)
            .url_schemes(HashSet::from([
                "http",
                "https",
                "mailto",
                "github-windows",
                "github-mac",
            ]))
            .url_relative(ammonia::UrlRelative::PassThrough)
            .link_rel(None)
            .strip_comments(true)
            .clean_content_tags(HashSet::from(["script", "style"]))
            .attribute_filter(|element, attribute, value| match (element, attribute) {
                ("input", "type") if value != "checkbox" => None,
                _ => Some(value.into()),
            });
        b
    })
}

/// comrak's options as GitHub renders a README: its extensions (tables, task lists,
/// strikethrough, autolinks, footnotes, alerts, emoji shortcodes), YAML front matter taken
/// off, and raw HTML kept (the tag filter is [`tag_filter`]).
fn github_options() -> comrak::Options<'static> {
    let mut o = comrak::Options::default();
    o.extension.strikethrough = true;
    o.extension.table = true;
    o.extension.autolink = true;
    o.extension.tasklist = true;
    o.extension.footnotes = true;
    o.extension.alerts = true;
    o.extension.shortcodes = true;
    o.extension.front_matter_delimiter = Some("---".into());
    o.render.r#unsafe = true;
    o.render.github_pre_lang = true;
    o
}

/// GFM's tag filter on rendered HTML: the `<` of each start or end tag of these elements is
/// written `&lt;`, so the tag shows as text. (Text of the document has its `<` escaped already,
/// so only raw HTML matches.)
fn tag_filter(html: &str) -> String {
    const FILTERED: [&str; 9] = [
        "title",
        "textarea",
        "style",
        "xmp",
        "iframe",
        "noembed",
        "noframes",
        "script",
        "plaintext",
    ];
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name = after.strip_prefix('/').unwrap_or(after);
        let filtered = FILTERED.iter().any(|tag| {
            name.len() > tag.len()
                && name.is_char_boundary(tag.len())
                && name[..tag.len()].eq_ignore_ascii_case(tag)
                && name[tag.len()..]
                    .starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/')
        });
        out.push_str(if filtered { "&lt;" } else { "<" });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The document as GitHub shows it: rendered whole with its raw HTML, then sanitized once.
fn reference(src: &str) -> String {
    let html = tag_filter(&comrak::markdown_to_html(src, &github_options()));
    sanitizer().clean(&html).to_string()
}

/// The prose of the engine's page for `src` (default options), as a browser reads it.
fn ours(src: &str) -> String {
    let page = render(src, &Options::default()).html;
    let after = page
        .split_once("name=\"pb.surface\" value=\"page\">")
        .map_or(page.as_str(), |(_, after)| after);
    let prose = after
        .split_once("<details class=\"pb-note pb-doc-note\">")
        .map_or(after, |(prose, _)| prose);
    sanitizer().clean(prose).to_string()
}

// ---------------------------------------------------------------------------------------------
// Reading the HTML

/// A node of HTML that the parser wrote out (every element closed, attributes quoted).
enum Node {
    Element {
        name: String,
        attrs: Vec<(String, String)>,
        kids: Vec<Node>,
    },
    Text(String),
}

const VOID: [&str; 16] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen", "frame",
];

/// Elements that flow inside a line: no word ends at their edges.
const INLINE: [&str; 29] = [
    "a", "b", "i", "em", "strong", "code", "span", "sup", "sub", "kbd", "mark", "s", "del", "ins",
    "small", "abbr", "tt", "q", "var", "samp", "cite", "dfn", "time", "bdo", "strike", "ruby",
    "rt", "rp", "picture",
];

fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';').filter(|e| *e < 12) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let c = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "nbsp" => Some('\u{a0}'),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// An element being read: its name, attributes and children so far.
type Open = (String, Vec<(String, String)>, Vec<Node>);

/// The tree of `html`, as the HTML5 serializer wrote it.
fn parse(html: &str) -> Vec<Node> {
    // (name, attrs, kids) of each open element; the bottom one is the document.
    let mut stack: Vec<Open> = vec![(String::new(), Vec::new(), Vec::new())];
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            stack
                .last_mut()
                .expect("the document")
                .2
                .push(Node::Text(decode(rest)));
            break;
        };
        if lt > 0 {
            let text = decode(&rest[..lt]);
            stack
                .last_mut()
                .expect("the document")
                .2
                .push(Node::Text(text));
        }
        rest = &rest[lt + 1..];
        if let Some(after) = rest.strip_prefix('/') {
            let gt = after.find('>').expect("a closed end tag");
            let name = after[..gt].trim().to_ascii_lowercase();
            rest = &after[gt + 1..];
            if stack.len() > 1 && stack.last().is_some_and(|(n, _, _)| *n == name) {
                let (name, attrs, kids) = stack.pop().expect("an open element");
                stack
                    .last_mut()
                    .expect("the document")
                    .2
                    .push(Node::Element { name, attrs, kids });
            }
            continue;
        }
        // A start tag: its name, then `name="value"` pairs (the serializer quotes every value
        // with `"` and writes a `"` inside one as `&quot;`).
        let name_len = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_len].to_ascii_lowercase();
        rest = &rest[name_len..];
        let mut attrs = Vec::new();
        loop {
            rest = rest.trim_start();
            if let Some(after) = rest.strip_prefix("/>") {
                rest = after;
                break;
            }
            if let Some(after) = rest.strip_prefix('>') {
                rest = after;
                break;
            }
            let key_len = rest
                .find(|c: char| c == '=' || c == '>' || c.is_whitespace())
                .unwrap_or(rest.len());
            let key = rest[..key_len].to_ascii_lowercase();
            rest = &rest[key_len..];
            let value = if let Some(after) = rest.strip_prefix("=\"") {
                let end = after.find('"').expect("a closed value");
                rest = &after[end + 1..];
                decode(&after[..end])
            } else {
                String::new()
            };
            attrs.push((key, value));
        }
        if VOID.contains(&name.as_str()) {
            stack
                .last_mut()
                .expect("the document")
                .2
                .push(Node::Element {
                    name,
                    attrs,
                    kids: Vec::new(),
                });
        } else {
            stack.push((name, attrs, Vec::new()));
        }
    }
    while stack.len() > 1 {
        let (name, attrs, kids) = stack.pop().expect("an open element");
        stack
            .last_mut()
            .expect("the document")
            .2
            .push(Node::Element { name, attrs, kids });
    }
    stack.pop().expect("the document").2
}

fn attr<'n>(attrs: &'n [(String, String)], key: &str) -> Option<&'n str> {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The text a reader sees in `nodes` (every `<details>` opened), a space where a block ends.
fn text_of(nodes: &[Node], out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Element { name, kids, .. } => {
                let block = !INLINE.contains(&name.as_str());
                if block {
                    out.push(' ');
                }
                text_of(kids, out);
                if block {
                    out.push(' ');
                }
            }
        }
    }
}

fn words(nodes: &[Node]) -> String {
    let mut text = String::new();
    text_of(nodes, &mut text);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a reader sees of a document.
#[derive(Default)]
struct Seen {
    /// Each `<details>`: whether it starts open, and its words.
    details: Vec<String>,
    /// Each wrapper with an `align` (`div`, `p`, a heading): the alignment and its words.
    aligned: Vec<String>,
    /// Each image: its source and alt.
    images: Vec<String>,
    /// Each alert: its kind and words.
    alerts: Vec<String>,
    /// Every word, in order.
    words: String,
    checkboxes: usize,
    named_checkboxes: usize,
}

impl Seen {
    fn of(html: &str) -> Seen {
        let tree = parse(html);
        let mut seen = Seen {
            words: words(&tree),
            ..Seen::default()
        };
        seen.walk(&tree);
        seen
    }

    fn walk(&mut self, nodes: &[Node]) {
        for node in nodes {
            let Node::Element { name, attrs, kids } = node else {
                continue;
            };
            match name.as_str() {
                "details" => {
                    let open = if attr(attrs, "open").is_some() {
                        "open"
                    } else {
                        "closed"
                    };
                    self.details.push(format!("{open}: {}", words(kids)));
                }
                "div" | "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                    if let Some(align) = attr(attrs, "align") {
                        self.aligned.push(format!(
                            "{name} {}: {}",
                            align.to_ascii_lowercase(),
                            words(kids)
                        ));
                    }
                }
                "img" => self.images.push(format!(
                    "{} [{}]",
                    attr(attrs, "src").unwrap_or("(no source)"),
                    attr(attrs, "alt").unwrap_or("")
                )),
                "input" if attr(attrs, "type") == Some("checkbox") => {
                    self.checkboxes += 1;
                    if attr(attrs, "aria-label").is_some_and(|l| !l.trim().is_empty()) {
                        self.named_checkboxes += 1;
                    }
                }
                _ => {}
            }
            if name == "div"
                && let Some(class) = attr(attrs, "class")
                && let Some(kind) = class.split_whitespace().find_map(|c| {
                    c.strip_prefix("markdown-alert-")
                        .or_else(|| c.strip_prefix("pb-alert-"))
                })
            {
                self.alerts.push(format!("{kind}: {}", words(kids)));
            }
            self.walk(kids);
        }
    }

    /// The aspects compared, by the names `differences.json` uses.
    fn aspects(&self) -> [(&'static str, String); 5] {
        [
            ("details", self.details.join("\n")),
            ("aligned", self.aligned.join("\n")),
            ("images", self.images.join("\n")),
            ("alerts", self.alerts.join("\n")),
            ("words", self.words.clone()),
        ]
    }
}

/// The `key: value` lines of the document's YAML front matter.
fn front_matter_lines(src: &str) -> Vec<String> {
    let mut lines = src.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Vec::new();
    }
    lines
        .take_while(|l| l.trim_end() != "---")
        .filter(|l| {
            l.split_once(':')
                .is_some_and(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty())
        })
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Where two renderings of one aspect first part: the two lines, or the two runs of words.
fn first_difference(ours: &str, reference: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = if ours.contains('\n') || reference.contains('\n') {
        (ours.lines().collect(), reference.lines().collect())
    } else {
        (
            ours.split(' ').collect(),
            reference.split(' ').collect::<Vec<_>>(),
        )
    };
    let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let window = |v: &[&str]| v[at.saturating_sub(3)..(at + 12).min(v.len())].join(" ");
    format!(
        "{} vs {} items; first difference at {at}:\n  ours:      {}\n  reference: {}",
        a.len(),
        b.len(),
        window(&a),
        window(&b)
    )
}

// ---------------------------------------------------------------------------------------------
// The tests

/// The documented differences: document → aspect → reason.
fn differences() -> &'static BTreeMap<String, BTreeMap<String, String>> {
    static DIFFERENCES: OnceLock<BTreeMap<String, BTreeMap<String, String>>> = OnceLock::new();
    DIFFERENCES.get_or_init(|| {
        let text = std::fs::read_to_string(corpus_dir().join("differences.json"))
            .expect("fixtures/github-readmes/differences.json");
        serde_json::from_str(&text).expect("document → { aspect: reason }")
    })
}

fn read(name: &str) -> String {
    std::fs::read_to_string(corpus_dir().join(name)).expect("a corpus document")
}

fn run_document(name: &str) {
    let src = read(name);
    let ours_html = ours(&src);
    let ours = Seen::of(&ours_html);
    let reference = Seen::of(&reference(&src));
    let listed = differences().get(name);
    let mut failures = Vec::new();
    for ((aspect, mine), (_, theirs)) in ours.aspects().into_iter().zip(reference.aspects()) {
        let reason = listed.and_then(|l| l.get(aspect));
        match (mine == theirs, reason) {
            (false, None) => failures.push(format!(
                "{aspect} differ from GitHub's, and differences.json does not say why: {}",
                first_difference(&mine, &theirs)
            )),
            (true, Some(reason)) => failures.push(format!(
                "{aspect} is listed in differences.json ({reason}) but no longer differs: take \
                 it off the list"
            )),
            _ => {}
        }
    }
    if let Some(listed) = listed {
        for aspect in listed.keys() {
            if !ours.aspects().iter().any(|(a, _)| a == aspect) {
                failures.push(format!(
                    "differences.json names an unknown aspect {aspect:?}"
                ));
            }
        }
    }
    // Front matter is never shown, whatever else differs.
    for line in front_matter_lines(&src) {
        if ours.words.contains(&line) {
            failures.push(format!("the front matter shows: {line:?}"));
        }
    }
    assert_eq!(
        ours.named_checkboxes, ours.checkboxes,
        "{name}: every task-list checkbox has a name"
    );
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
}

/// The corpus is what `sources.tsv` says, and as large as the issue asks: at least 40
/// documents from at least 25 repositories, each with its commit and licence. Run with
/// `--nocapture` to see the figures: how many of each idiom keep what GitHub shows.
#[test]
fn corpus_is_listed_and_large_enough_and_its_figures() {
    let tsv = std::fs::read_to_string(corpus_dir().join("sources.tsv")).expect("sources.tsv");
    let mut listed = HashSet::new();
    let mut repos = HashSet::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 5, "repo, commit, path, licence, file: {line}");
        assert_eq!(cols[1].len(), 40, "a full commit: {line}");
        assert!(!cols[3].trim().is_empty(), "a licence: {line}");
        repos.insert(cols[0].to_string());
        listed.insert(cols[4].to_string());
    }
    let files: HashSet<String> = std::fs::read_dir(corpus_dir())
        .expect("the corpus")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|f| f.ends_with(".md") && f != "SOURCE.md")
        .collect();
    assert_eq!(
        files, listed,
        "every document, and only those, in sources.tsv"
    );
    assert!(
        files.len() >= 40 && repos.len() >= 25,
        "{} documents, {} repositories",
        files.len(),
        repos.len()
    );
    for name in differences().keys() {
        assert!(
            files.contains(name),
            "differences.json names {name}, not in the corpus"
        );
    }

    // The figures, against the reference.
    let mut names: Vec<&String> = files.iter().collect();
    names.sort();
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut count = |key: &'static str, kept: usize, of: usize| {
        let e = tally.entry(key).or_insert((0, 0));
        e.0 += kept;
        e.1 += of;
    };
    for name in names {
        let src = read(name);
        let ours = Seen::of(&ours(&src));
        let reference = Seen::of(&reference(&src));
        let same = |a: &[String], b: &[String]| a.iter().filter(|x| b.contains(x)).count();
        count(
            "details keeping their body (and open)",
            same(&ours.details, &reference.details),
            reference.details.len(),
        );
        count(
            "aligned wrappers keeping their content",
            same(&ours.aligned, &reference.aligned),
            reference.aligned.len(),
        );
        let sources = |images: &[String]| -> Vec<String> {
            images
                .iter()
                .map(|i| {
                    i.split_once(" [")
                        .map_or(i.as_str(), |(src, _)| src)
                        .to_string()
                })
                .collect()
        };
        count(
            "images shown from the same source",
            same(&sources(&ours.images), &sources(&reference.images)),
            reference.images.len(),
        );
        count(
            "images shown with the same source and alt",
            same(&ours.images, &reference.images),
            reference.images.len(),
        );
        count(
            "alerts as on GitHub",
            same(&ours.alerts, &reference.alerts),
            reference.alerts.len(),
        );
        let fm = front_matter_lines(&src);
        if !fm.is_empty() {
            count(
                "front matter hidden",
                usize::from(!fm.iter().any(|l| ours.words.contains(l))),
                1,
            );
        }
        count(
            "files with the same visible words",
            usize::from(ours.words == reference.words),
            1,
        );
        count(
            "task-list checkboxes with a name",
            ours.named_checkboxes,
            ours.checkboxes,
        );
    }
    for (what, (kept, of)) in &tally {
        println!("{what}: {kept} of {of}");
    }
    let (named, boxes) = tally["task-list checkboxes with a name"];
    assert_eq!(named, boxes);
}

/// The comparison sees what a reader sees: an `http` image GitHub shows is a link here (the
/// default policy loads `https` only), and a collapsible section's body and `open` are read on
/// both sides.
#[test]
fn the_comparison_reads_what_a_reader_sees() {
    let src = "---\ntitle: Corpus\n---\n\n![chart](http://plain.example/c.png)\n\n\
               <details open><summary>More</summary>\n\nThe *body*.\n\n</details>\n\n\
               > [!TIP]\n> Cache it.\n\n<script>alert(1)</script>\n";
    let reference = Seen::of(&reference(src));
    let ours = Seen::of(&ours(src));
    assert_eq!(reference.images, ["http://plain.example/c.png [chart]"]);
    assert!(ours.images.is_empty());
    assert_ne!(ours.words, reference.words, "the link's words show here");
    for seen in [&reference, &ours] {
        assert_eq!(seen.details, ["open: More The body."]);
        assert_eq!(seen.alerts, ["tip: Tip Cache it."]);
        assert!(!seen.words.contains("title") && !seen.words.contains("Corpus"));
    }
    assert!(
        reference.words.ends_with("<script>alert(1)</script>"),
        "{}",
        reference.words
    );
    assert_eq!(front_matter_lines(src), ["title: Corpus"]);
}
