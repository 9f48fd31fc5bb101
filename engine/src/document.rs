//! From Markdown text to blocks: one comrak parse finds the component fences (anywhere: top
//! level, lists, block quotes), numbers them `b1…`, validates each, and — when rendering — swaps
//! each fence for a placeholder so the prose renders through comrak while components render
//! through maud.

use crate::components::check::{Checker, closest};
use crate::components::{AnyComponent, Kind};
use crate::diag::{Code, Diagnostic, Severity};
use crate::json::{self, Json};
use bumpalo::Bump;
use comrak::nodes::{AstNode, NodeValue};
use comrak::{Arena, Options as ComrakOptions};
use serde::Serialize;
use std::borrow::Cow;
use std::cell::{Cell, OnceCell};

/// One component fence, as listed in `blocks` (contract §2).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct BlockInfo {
    /// `b1`, `b2`, … in document order.
    pub id: String,
    /// The fence's component.
    pub kind: Kind,
    /// Whether it validated (and so renders as a widget).
    pub valid: bool,
    /// The opening fence's 1-based line.
    pub line: usize,
}

/// A component fence with its source and, when valid, its typed value.
#[derive(Debug, Clone)]
pub struct Block {
    pub info: BlockInfo,
    /// The fence's content as written (shown escaped when the block is invalid).
    pub source: String,
    pub component: Option<AnyComponent>,
}

/// What parsing a document yields, before any HTML is produced.
pub struct Parsed<'a> {
    pub root: &'a AstNode<'a>,
    pub blocks: Vec<Block>,
    /// The AST nodes that hold each block, in the same order as `blocks`. Their text has
    /// moved into the blocks' `source`.
    pub nodes: Vec<&'a AstNode<'a>>,
    /// The footnote definitions and references, found in the same walk, so rendering can give
    /// their names the page's id prefix without a walk of its own.
    pub footnotes: Vec<&'a AstNode<'a>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the prose holds raw HTML (lone comments aside, which are dropped). The URL policy
    /// ([`crate::sanitize::Police`]) has been applied to the tree.
    pub raw_html: bool,
    /// True when the whole document was a bare component JSON object.
    #[cfg_attr(not(test), allow(dead_code))] // what the bare-paste tests check
    pub bare: bool,
    /// The YAML front matter at the top of the document, which is never shown.
    pub front_matter: Option<FrontMatter>,
    /// The headings and task-list items, in document order, found in the same walk: the prose
    /// writer's ids and names for them ([`crate::prose::Anchors`]) are read from these.
    pub named: Vec<&'a AstNode<'a>>,
    /// False when the source cannot hold a Hebrew or Arabic letter (see
    /// [`crate::html::i18n::may_hold_rtl`]): the language is then English without a walk.
    pub rtl_possible: bool,
}

impl Parsed<'_> {
    /// The document's chrome language, from every letter the reader sees: the prose and the
    /// components' text.
    pub fn lang(&self) -> crate::html::i18n::Lang {
        if !self.rtl_possible {
            return crate::html::i18n::Lang::En;
        }
        let mut letters = crate::html::i18n::Letters::default();
        for node in self.root.descendants() {
            if let NodeValue::Text(t) = &node.data().value {
                letters.add(t);
            }
        }
        for c in self.blocks.iter().filter_map(|b| b.component.as_ref()) {
            c.visible_text(&mut |text| letters.add(text));
        }
        letters.lang()
    }
}

/// An arena for the tree of `src`, sized once for it: prose runs at about one node per 18 bytes
/// (tables and lists) to one per 32 (paragraphs and code), and an arena that starts small
/// grows by a new block for every doubling. Capped, so a document of one huge code block does
/// not reserve room for nodes it never makes.
pub fn arena_for<'a>(src: &str) -> Arena<'a> {
    Arena::with_capacity((src.len() / 24).clamp(8, 4096))
}

/// The comrak options every entry point uses: CommonMark + GFM.
pub fn comrak_options(allow_raw_html: bool) -> ComrakOptions<'static> {
    let mut o = ComrakOptions::default();
    o.extension.strikethrough = true;
    o.extension.table = true;
    o.extension.autolink = true;
    o.extension.tasklist = true;
    o.extension.footnotes = true;
    // GitHub's `> [!NOTE]` … `> [!CAUTION]`, written by `prose::alert`.
    o.extension.alerts = true;
    // `:tada:` as the emoji GitHub shows (never inside code).
    o.extension.shortcodes = true;
    o.render.r#unsafe = allow_raw_html;
    o
}

/// What `markdown` leaves open at its end that would run on into whatever follows it: an
/// unclosed ``` or ~~~ fence, or an HTML block that only ends at its closing marker (`<!--`
/// without `-->`, `<pre>` without `</pre>`, …). `None` when the text ends cleanly. Used where
/// separate pieces of Markdown are joined (the typed-blocks input), so one piece cannot swallow
/// the components after it.
pub fn left_open(markdown: &str) -> Option<&'static str> {
    let arena = Arena::new();
    // Alerts change nothing about what is left open, and looking for them can cost the square
    // of a line's run of `>` (see `alerts_over_budget`).
    let mut options = comrak_options(false);
    options.extension.alerts = false;
    let root = comrak::parse_document(&arena, markdown, &options);
    let last = root.last_child()?;
    let ast = last.data.borrow();
    match &ast.value {
        NodeValue::CodeBlock(c) if c.fenced && !c.closed => Some(if c.fence_char == b'~' {
            "a ~~~ code block that is never closed"
        } else {
            "a ``` code block that is never closed"
        }),
        NodeValue::HtmlBlock(h) => html_block_left_open(h),
        _ => None,
    }
}

/// What an HTML block leaves open when it only ends at a closing marker it never reaches
/// (`<script>`, `<pre>`, `<style>`, `<textarea>`, `<!--`, `<?`, `<!X`, `<![CDATA[`): it then runs
/// to the end of its container, swallowing every component and paragraph after it.
fn html_block_left_open(h: &comrak::nodes::NodeHtmlBlock) -> Option<&'static str> {
    let literal = h.literal.to_ascii_lowercase();
    let (ended, what) = match h.block_type {
        1 => (
            ["</script>", "</pre>", "</style>", "</textarea>"]
                .iter()
                .any(|end| literal.contains(end)),
            "a <script>, <pre>, <style> or <textarea> block that is never closed",
        ),
        2 => (
            literal.contains("-->"),
            "an HTML comment (<!--) that is never closed",
        ),
        3 => (
            literal.contains("?>"),
            "a <? block that is never closed with ?>",
        ),
        4 => (
            literal.contains('>'),
            "a <! declaration that is never closed with >",
        ),
        5 => (
            literal.contains("]]>"),
            "a <![CDATA[ section that is never closed",
        ),
        _ => (true, ""),
    };
    (!ended).then_some(what)
}

/// A document's YAML front matter (`---` on the first line, `key: value` lines, `---` or
/// `...`), as docs sites and GitHub read it: never shown as prose; its `title` names the page
/// and the email.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrontMatter {
    /// The `title:` value, unquoted, when there is one.
    pub title: Option<String>,
    /// The YAML between the markers, as written.
    pub yaml: String,
    /// Where the closing marker's line ends, in bytes of the source.
    #[serde(skip)]
    end: usize,
}

/// The most front matter that is looked for: a document whose first line is `---` and that has
/// no closing marker costs a scan of this much, not of the whole document.
const MAX_FRONT_MATTER: usize = 64 * 1024;

impl FrontMatter {
    /// The front matter at the start of `src`, when every line between the markers reads as
    /// YAML (a `key:`, an indented or `- ` continuation, a `#` comment or a blank line), so a
    /// document that opens with a thematic break keeps it.
    fn read(src: &str) -> Option<FrontMatter> {
        let mut lines = lines_inclusive(src);
        if lines.next()?.trim_end() != "---" {
            return None;
        }
        let body_start = src.find('\n')? + 1;
        let mut at = body_start;
        let mut title = None;
        let mut keys = 0;
        for line in lines {
            if at > MAX_FRONT_MATTER {
                return None;
            }
            let content = line.trim_end();
            if content == "---" || content == "..." {
                return (keys > 0).then(|| FrontMatter {
                    title,
                    yaml: src[body_start..at].to_string(),
                    end: at + line.len(),
                });
            }
            at += line.len();
            if content.trim_start().is_empty()
                || content.starts_with('#')
                || content.starts_with([' ', '\t'])
                || content == "-"
                || content.starts_with("- ")
            {
                continue;
            }
            let (key, value) = content.split_once(':')?;
            let is_key = key.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
            if !is_key || !(value.is_empty() || value.starts_with([' ', '\t'])) {
                return None;
            }
            keys += 1;
            if key == "title" {
                title = Some(unquote(value.trim())).filter(|t| !t.is_empty());
            }
        }
        None
    }
}

/// A YAML scalar without its quotes (`'…'` with `''` for a quote, or `"…"`).
fn unquote(value: &str) -> String {
    if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        inner.replace("''", "'")
    } else if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        inner.replace("\\\"", "\"")
    } else {
        value.to_string()
    }
}

/// `src` with its first `end` bytes blanked: every byte but line endings a space.
fn blank_start(src: &str, end: usize) -> String {
    let mut out = String::with_capacity(src.len());
    for c in src[..end].bytes() {
        out.push(if matches!(c, b'\n' | b'\r') {
            c as char
        } else {
            ' '
        });
    }
    out.push_str(&src[end..]);
    out
}

/// comrak's parse of `text`, stopped once the render running on this thread is cancelled (its
/// request timed out or went away), so a slow parse gives its render slot back: the tree is
/// then an empty document, which nobody sees, as a cancelled render is neither sent nor kept.
/// A render nothing can cancel (the CLI's, the mdBook preprocessor's) takes the plain parse,
/// which skips the step counting (about 1.5% of a render's instructions).
fn parse_unless_cancelled<'a>(
    arena: &'a Arena<'a>,
    text: &str,
    options: &ComrakOptions<'_>,
) -> &'a AstNode<'a> {
    if !crate::budget::cancellable() {
        return comrak::parse_document(arena, text, options);
    }
    comrak::try_parse_document(arena, text, options, &crate::budget::cancelled)
        .unwrap_or_else(|_| comrak::parse_document(arena, "", options))
}

/// How many unclosed HTML blocks a parse reopens ([`reopen_unclosed_html`]) before it leaves the
/// rest as they are: each one costs a parse of the whole document.
const MAX_REOPENED: usize = 8;

/// Parses `text`, and again as long as it holds an HTML block that is never closed (see
/// [`html_block_left_open`]) and fewer than [`MAX_REOPENED`] were reopened: the block's first
/// `<` is escaped, so the tag shows as text and what follows is Markdown again. Each one gets a
/// warning at its line and column.
fn reopen_unclosed_html<'a>(
    arena: &'a Arena<'a>,
    text: &mut Cow<'_, str>,
    diagnostics: &mut Vec<Diagnostic>,
) -> &'a AstNode<'a> {
    let options = parse_options(text, diagnostics);
    let mut root = parse_unless_cancelled(arena, text, &options);
    // Only a document with a `<` can hold an HTML block.
    if memchr::memchr(b'<', text.as_bytes()).is_none() {
        return root;
    }
    for _ in 0..MAX_REOPENED {
        let open = root.descendants().find_map(|n| match &n.data().value {
            NodeValue::HtmlBlock(h) => {
                html_block_left_open(h).map(|what| (n.data().sourcepos.start, what))
            }
            _ => None,
        });
        let Some((at, what)) = open else { break };
        // Lines end as CommonMark ends them (`\n`, `\r\n` or a lone `\r`); the column is in bytes.
        let line_start: usize = lines_inclusive(text)
            .take(at.line.saturating_sub(1))
            .map(str::len)
            .sum();
        let mut from = (line_start + at.column.saturating_sub(1)).min(text.len());
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        let Some(lt) = text[from..].find('<').map(|k| from + k) else {
            break;
        };
        let column = text[line_start..lt].chars().count() + 1;
        text.to_mut().insert(lt, '\\');
        diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            code: Code::RawHtmlUnbalanced,
            block: None,
            line: at.line,
            column,
            path: String::new(),
            message: format!(
                "{what}: it would hide everything after it, so its tag is shown as text"
            ),
            hint:
                "end it where it should end, with its end tag or `-->`, or write its `<` as `\\<`"
                    .into(),
        });
        root = parse_unless_cancelled(arena, text, &options);
    }
    root
}

/// [`comrak_options`] for parsing `text`: emoji shortcodes are looked for only when the text
/// holds something that could be one (`:name:`), as comrak's inline parser otherwise stops at
/// every `:` for nothing; GitHub alerts only within their budget ([`alerts_over_budget`], whose
/// warning goes to `diagnostics`).
fn parse_options(text: &str, diagnostics: &mut Vec<Diagnostic>) -> ComrakOptions<'static> {
    let mut options = comrak_options(false);
    options.extension.shortcodes = may_hold_shortcode(text.as_bytes());
    if let Some(warning) = alerts_over_budget(text) {
        options.extension.alerts = false;
        diagnostics.push(warning);
    }
    options
}

/// Steps of GitHub-alert detection a document may cost per byte of its text (plus a fixed
/// [`ALERT_STEPS_FLOOR`]): ordinary documents use a few.
const ALERT_STEPS_PER_BYTE: usize = 64;
const ALERT_STEPS_FLOOR: usize = 1 << 20;

/// A warning when looking for GitHub alerts in `text` would cost more than its budget, in which
/// case the parse leaves alerts out. comrak tries `> [!NOTE]` at every block quote a line opens
/// and reads the whole run of `>` that follows each time, so a line of n `>` in a row costs
/// n²/2 steps: a megabyte of them, minutes. The count errs high (every run of `>` counts, not
/// only those that open block quotes); the warning names the line of the longest run.
fn alerts_over_budget(text: &str) -> Option<Diagnostic> {
    let bytes = text.as_bytes();
    let budget = bytes
        .len()
        .saturating_mul(ALERT_STEPS_PER_BYTE)
        .saturating_add(ALERT_STEPS_FLOOR);
    let (mut steps, mut longest, mut longest_at) = (0usize, 0usize, 0usize);
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'>', &bytes[at..]) {
        let start = at + found;
        let run = bytes[start..].iter().take_while(|&&b| b == b'>').count();
        steps = steps.saturating_add(run.saturating_mul(run + 1) / 2);
        if run > longest {
            (longest, longest_at) = (run, start);
        }
        at = start + run;
    }
    if steps <= budget {
        return None;
    }
    let (mut line, mut line_start) = (1, 0);
    for l in lines_inclusive(text) {
        if line_start + l.len() > longest_at {
            break;
        }
        line += 1;
        line_start += l.len();
    }
    Some(Diagnostic {
        severity: Severity::Warning,
        code: Code::OverBudget,
        block: None,
        line,
        column: text[line_start..longest_at].chars().count() + 1,
        path: String::new(),
        message: format!(
            "{longest} `>` in a row here: looking for a GitHub alert (`> [!NOTE]`) after each of them would cost more than this document's budget, so its alerts are shown as plain block quotes"
        ),
        hint: "nest block quotes with a space between the markers (`> > >`), or with fewer levels"
            .into(),
    })
}

/// Whether `text` holds a `:`, a run of letters, digits, `+`, `_` or `-`, and a `:`: the shape
/// of every emoji shortcode (comrak's scanner's pattern).
fn may_hold_shortcode(text: &[u8]) -> bool {
    let name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'_' | b'-');
    memchr::memchr_iter(b':', text).any(|at| {
        let rest = &text[at + 1..];
        let run = rest.iter().take_while(|b| name(b)).count();
        run > 0 && rest.get(run) == Some(&b':')
    })
}

/// Parses `src` into `arena`, finds and validates every component.
pub fn parse<'a>(arena: &'a Arena<'a>, src: &str) -> Parsed<'a> {
    let mut diagnostics = Vec::new();
    let lines = LineIndex::new(src);

    if let Some(parsed) = bare_paste(arena, src, &lines) {
        return parsed;
    }
    diagnostics.extend(broken_bare_json(src, &lines));

    // Front matter is read, then blanked out (same bytes, same lines): positions do not move.
    let front_matter = FrontMatter::read(src);
    let blanked;
    let visible = match &front_matter {
        Some(f) => {
            blanked = blank_start(src, f.end);
            blanked.as_str()
        }
        None => src,
    };
    let (text, rescued_lines) = rescue_nested_fences(visible);
    let rescued_base = diagnostics.len();
    for (_, line) in &rescued_lines {
        diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            code: Code::NestedJsonFenceRescued,
            block: None,
            line: *line,
            column: 1,
            path: String::new(),
            message: "a ```json fence inside a component fence was ignored".into(),
            hint: "put the bare JSON directly between the component fence and its closing ```"
                .into(),
        });
    }
    let limits = crate::budget::limits();
    let (mut text, over) = limit_tables(text, limits.table_cells_for(src.len()));
    diagnostics.extend(over);
    let root = reopen_unclosed_html(arena, &mut text, &mut diagnostics);
    let mut parts_left = limits.diagram_parts_for(src.len());
    // Every block's JSON tree, one block at a time (see `check_block`).
    let mut json_arena = Bump::new();

    // Room for one component per 192 bytes, a few more than the densest documents hold (the
    // component-dense 20 KB bench document has 80): a block is over 300 bytes, and a list that
    // doubles its way up copies every block each time. Capped, so a long document of prose
    // does not reserve room it never fills.
    let expected_blocks = (src.len() / 192).min(128);
    let mut blocks = Vec::with_capacity(expected_blocks);
    let mut nodes = Vec::with_capacity(expected_blocks);
    // Per block, how many diagnostics the walk had found before it: its own go after them.
    let mut diagnostics_at = Vec::with_capacity(expected_blocks);
    let mut footnotes = Vec::new();
    let mut police = crate::sanitize::Police::default();
    for node in preorder(root) {
        // A component's text is moved out of the tree into its block (the node is only a
        // place holder from here on); other fences are only looked at.
        let (line, kind, literal) = {
            let mut data = node.data_mut();
            let data = &mut *data;
            let cb = match &mut data.value {
                NodeValue::CodeBlock(cb) => cb,
                NodeValue::FootnoteDefinition(_) | NodeValue::FootnoteReference(_) => {
                    footnotes.push(node);
                    continue;
                }
                // Every other node goes by the URL policy, which knows the kinds it acts on.
                value => {
                    police.visit(node, value);
                    continue;
                }
            };
            if !cb.fenced {
                continue;
            }
            let (line, column) = (data.sourcepos.start.line, data.sourcepos.start.column);
            let info = cb.info.trim();
            let Some(kind) = Kind::from_tag(info) else {
                diagnostics.extend(code_block_warnings(
                    info,
                    &cb.literal,
                    cb.closed,
                    line,
                    column,
                ));
                continue;
            };
            (line, kind, std::mem::take(&mut cb.literal))
        };
        blocks.push(Block {
            info: BlockInfo {
                id: block_id(blocks.len()),
                kind,
                valid: false,
                line,
            },
            source: literal,
            component: None,
        });
        diagnostics_at.push(diagnostics.len());
        nodes.push(node);
    }
    // Each kind's blocks are checked together, each kind's in document order: a kind's code (a
    // flowchart's parser and layout above all) stays in the instruction cache from one block
    // to the next, where document order would run through every kind's for each section of a
    // component-dense document. Nothing a check does depends on the blocks checked before it.
    let mut block_diagnostics: Vec<Vec<Diagnostic>> = vec![Vec::new(); blocks.len()];
    for &kind in Kind::ALL {
        for (b, diags) in blocks.iter_mut().zip(&mut block_diagnostics) {
            if b.info.kind == kind {
                let map = PosMap::for_fence(&lines, &b.source, b.info.line);
                (b.component, *diags) =
                    check_block(&b.info.id, kind, &b.source, &map, &mut json_arena);
            }
        }
    }
    // Then, in document order, what depends on the blocks before: the diagram budget, and
    // each block's diagnostics among the walk's.
    let mut walk_diagnostics = std::mem::take(&mut diagnostics).into_iter();
    let mut taken = 0;
    for ((b, mut diags), at) in blocks.iter_mut().zip(block_diagnostics).zip(diagnostics_at) {
        diagnostics.extend(walk_diagnostics.by_ref().take(at - taken));
        taken = at;
        let (id, line) = (&b.info.id, b.info.line);
        if let Some(AnyComponent::Mermaid(m)) = &mut b.component
            && let Some(chart) = &m.chart
        {
            // Every node and edge gets a comment field: past the budget, the diagram keeps
            // only its whole-diagram comment.
            let parts = chart.nodes.len() + chart.edges.len();
            if parts > parts_left {
                diags.push(Diagnostic {
                    severity: Severity::Warning,
                    code: Code::OverBudget,
                    block: Some(id.clone()),
                    line,
                    column: 1,
                    path: "/source".into(),
                    message: format!(
                        "the diagram has {parts} nodes and edges, more than the {parts_left} left of the document's budget, so it is not drawn and takes only whole-diagram comments"
                    ),
                    hint: "split the diagram, or drop the `&` groups that join many nodes to many".into(),
                });
                m.chart = None;
            } else {
                parts_left -= parts;
            }
        }
        // A fence rescued by the pre-scan gets its warning attached to the block. Those
        // warnings sit together in fence order, so a binary search finds it (a scan of every
        // diagnostic per block would be quadratic).
        let rescued = rescued_lines
            .binary_search_by_key(&line, |(fence, _)| *fence)
            .ok();
        if let Some(k) = rescued
            && let Some(d) = diagnostics.get_mut(rescued_base + k)
            && d.block.is_none()
        {
            d.block = Some(id.clone());
        }
        diagnostics.append(&mut diags);
        b.info.valid = b.component.is_some();
        // An invalid block is shown as written, so the ```json lines the pre-scan blanked
        // come back.
        if rescued.is_some() && !b.info.valid {
            b.source = unblank_fences(src, line, &b.source);
        }
    }
    diagnostics.extend(walk_diagnostics);
    let named = std::mem::take(&mut police.named);
    Parsed {
        root,
        blocks,
        nodes,
        footnotes,
        diagnostics,
        named,
        raw_html: police.finish(),
        bare: false,
        front_matter,
        rtl_possible: crate::html::i18n::may_hold_rtl(src),
    }
}

/// A block's id: `b` and its number from 1.
fn block_id(index: usize) -> String {
    let mut id = String::with_capacity(4);
    id.push('b');
    crate::html::push_decimal(&mut id, index as u64 + 1);
    id
}

/// Validates one block's JSON text. `map` locates byte offsets of `text` in the original.
/// The JSON tree is built in `arena`, emptied first: a component keeps nothing of the tree, and
/// the blocks of a document take turns in one arena, which allocates only while it grows.
pub fn check_block(
    id: &str,
    kind: Kind,
    text: &str,
    map: &PosMap,
    arena: &mut Bump,
) -> (Option<AnyComponent>, Vec<Diagnostic>) {
    arena.reset();
    let arena = &*arena;
    if kind == Kind::Mermaid
        && let Some(wrapped) = bare_mermaid(text)
    {
        // Raw Mermaid, as GitHub, mermaid.live and mdbook-mermaid users write it: read as the
        // `source` of a block with no title. The block is checked as that JSON, and every place
        // a diagnostic names in it is mapped back to the raw text.
        let wrapped = arena.alloc_str(&wrapped);
        let locate = |offset: usize| map.locate(bare_mermaid_offset(text, offset));
        let mut ck = Checker::new(id, &locate).with_text(wrapped);
        let (line, column) = map.locate(text.len() - text.trim_start().len());
        ck.diags.push(Diagnostic {
            severity: Severity::Info,
            code: Code::MermaidSourceBare,
            block: Some(id.to_string()),
            line,
            column,
            path: String::new(),
            message: "this ```mermaid block holds Mermaid text, not a component's JSON, so it is \
                      read as the diagram's source, with no title"
                .into(),
            hint: "nothing to do; for a title, write { \"version\": \"1\", \"title\": \"…\", \
                   \"source\": \"…\" } in the fence"
                .into(),
        });
        let component = parse_lenient(wrapped, arena, &mut ck)
            .and_then(|json| AnyComponent::parse(kind, &json, &mut ck));
        return (component, ck.diags);
    }
    let locate = |offset: usize| map.locate(offset);
    let mut ck = Checker::new(id, &locate).with_text(text);
    let component = parse_lenient(text, arena, &mut ck)
        .and_then(|json| AnyComponent::parse(kind, &json, &mut ck));
    (component, ck.diags)
}

/// Where the source string starts in [`bare_mermaid`]'s JSON: just after its opening quote.
const BARE_MERMAID_HEAD: &str = "{\"version\":\"1\",\"source\":\"";

/// Where the Mermaid text of a raw ```mermaid body starts: past a byte-order mark and blank
/// space.
fn bare_mermaid_lead(text: &str) -> usize {
    text.len()
        - text
            .trim_start_matches(['\u{FEFF}', ' ', '\t', '\n', '\r'])
            .len()
}

/// A ```mermaid body that is not JSON (its first non-blank character is not `{`), as the JSON
/// of a mermaid block whose `source` it is; `None` for a body that is (or tries to be) JSON, or
/// holds nothing.
fn bare_mermaid(text: &str) -> Option<String> {
    let body = text.trim_start_matches('\u{FEFF}').trim();
    if body.is_empty() || body.starts_with('{') {
        return None;
    }
    let mut out = String::with_capacity(text.len() + BARE_MERMAID_HEAD.len() + 8);
    out.push_str(BARE_MERMAID_HEAD);
    // The text from its first non-blank character to its last, as the JSON form would hold it.
    for c in text[bare_mermaid_lead(text)..].trim_end().chars() {
        push_json_char(&mut out, c);
    }
    out.push_str("\"}");
    Some(out)
}

/// `c` as it is written inside a JSON string.
fn push_json_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
        c => out.push(c),
    }
}

/// The offset in the raw text `text` of `offset` in [`bare_mermaid`]'s JSON of it: a place in
/// the head is the start of the text, a place in the string the character it was written from.
fn bare_mermaid_offset(text: &str, offset: usize) -> usize {
    let lead = bare_mermaid_lead(text);
    let Some(mut left) = offset.checked_sub(BARE_MERMAID_HEAD.len()) else {
        return lead;
    };
    for (i, c) in text.char_indices().skip_while(|&(i, _)| i < lead) {
        let width = match c {
            '"' | '\\' | '\n' | '\r' | '\t' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if left < width {
            return i;
        }
        left -= width;
    }
    text.len()
}

/// `root` and its descendants in document order, as `descendants()` gives them, but one step per
/// node: `descendants()` walks the tree by its start and end edges and skips the ends, two
/// steps and a branch that mispredicts often per node, and this walk sees every node of the
/// document.
pub fn preorder<'a>(root: &'a AstNode<'a>) -> impl Iterator<Item = &'a AstNode<'a>> {
    let mut next = Some(root);
    std::iter::from_fn(move || {
        let node = next?;
        next = node.first_child().or_else(|| {
            let mut up = node;
            loop {
                if std::ptr::eq(up, root) {
                    return None;
                }
                if let Some(sibling) = up.next_sibling() {
                    return Some(sibling);
                }
                up = up.parent()?;
            }
        });
        Some(node)
    })
}

/// Strict JSON first; on failure, the spec's rescues (smart quotes, trailing commas), each
/// reported as a warning. (A nested ```json fence was already blanked out by the pre-scan,
/// `rescue_nested_fences`, before comrak saw the document.)
fn parse_lenient<'t>(text: &'t str, arena: &'t Bump, ck: &mut Checker) -> Option<Json<'t>> {
    let first = json::parse(text, arena);
    // With the offset of the first quote the rescue straightened (it keeps byte offsets).
    let (parsed, rescued_quotes) = match first {
        Ok(p) => (p, None),
        Err(err) => match json::rescue_smart_quotes(text).map(|fixed| {
            let at = text.bytes().zip(fixed.bytes()).position(|(a, b)| a != b);
            json::parse(arena.alloc_str(&fixed), arena).map(|p| (p, at.unwrap_or(0)))
        }) {
            Some(Ok((p, at))) => (p, Some(at)),
            _ => {
                let (code, hint) = if err.too_deep {
                    (
                        Code::TooDeep,
                        format!(
                            "a component never needs more than {} levels of nesting",
                            json::MAX_DEPTH
                        ),
                    )
                } else {
                    (Code::InvalidJson, "fix the JSON: straight \" quotes, balanced { } and [ ], commas between entries".to_string())
                };
                ck.error(
                    code,
                    err.offset,
                    "",
                    format!("the block is not valid JSON: {}", err.message),
                    hint,
                );
                return None;
            }
        },
    };
    if let Some(at) = rescued_quotes {
        ck.warn(
            Code::SmartQuotesRescued,
            at,
            "",
            "curly quotes “ ” were read as straight quotes".into(),
            "emit straight ASCII \" quotes; chat surfaces often curl them".into(),
        );
    }
    for at in &parsed.trailing_commas {
        ck.warn(
            Code::TrailingCommaRescued,
            *at,
            "",
            "a trailing comma before } or ] was dropped".into(),
            "remove the comma after the last entry".into(),
        );
    }
    for (at, key) in &parsed.duplicate_keys {
        let path = parsed.value.pointer_to_key(*at);
        ck.warn(
            Code::DuplicateKey,
            *at,
            path.as_deref().unwrap_or(""),
            format!("the key `{key}` appears twice in one object; the last one is used"),
            "remove the repeated key".into(),
        );
    }
    Some(parsed.value)
}

/// `literal` (a component fence's content, its opening fence at 1-based `fence_line` of `src`)
/// with the fence lines `rescue_nested_fences` blanked put back as written. Blanking kept
/// every byte in place and comrak only strips a line's container prefix, so a blank line of
/// the literal is the end of its source line.
fn unblank_fences(src: &str, fence_line: usize, literal: &str) -> String {
    let mut originals = src.split_inclusive('\n').skip(fence_line);
    let mut out = String::with_capacity(literal.len());
    for line in literal.split_inclusive('\n') {
        let original = originals.next().unwrap_or("");
        let body = line.trim_end_matches(['\r', '\n']);
        let was = original.trim_end_matches(['\r', '\n']);
        let restored = (body.trim().is_empty()
            && fence_parts(strip_container_prefix(was).trim()).is_some())
        .then(|| was.get(was.len().saturating_sub(body.len())..))
        .flatten();
        match restored {
            Some(text) => {
                out.push_str(text);
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Whether a source line (container markers and all) is a closing fence: a run of three or
/// more backticks or tildes with nothing after it.
pub fn is_closing_fence(line: &str) -> bool {
    matches!(
        fence_parts(strip_container_prefix(line).trim()),
        Some((_, ""))
    )
}

/// The fence characters and the info string of a fence line (already trimmed).
fn fence_parts(line: &str) -> Option<(&str, &str)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|x| *x == c).count();
    (len >= 3).then(|| (&line[..len], line[len..].trim()))
}

/// Spaces in place of every character, keeping the line break and the byte length.
fn blank(line: &str) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    let mut s = " ".repeat(body.len());
    s.push_str(&line[body.len()..]);
    s
}

/// The lines of `text` with their line breaks, as CommonMark reads them: `\n`, `\r\n` or a
/// lone `\r` ends a line.
fn lines_inclusive(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = match memchr::memchr2(b'\n', b'\r', &bytes[start..]) {
            Some(i) if bytes[start + i] == b'\r' && bytes.get(start + i + 1) == Some(&b'\n') => {
                start + i + 2
            }
            Some(i) => start + i + 1,
            None => bytes.len(),
        };
        let line = &text[start..end];
        start = end;
        Some(line)
    })
}

/// An upper bound on the cells of every GFM table in `bytes` together: a table has at most as
/// many columns as its delimiter row has `|`s plus one, and at most as many rows as the text has
/// lines, so no table set passes (the most `|`s on a line + 1) × (the line count). `\r` counts
/// as a line break too (a `\r\n` twice), which only raises the bound.
fn cells_bound(bytes: &[u8]) -> usize {
    let (mut lines, mut pipes, mut most) = (1usize, 0usize, 0usize);
    for i in memchr::memchr3_iter(b'|', b'\n', b'\r', bytes) {
        if bytes[i] == b'|' {
            pipes += 1;
        } else {
            lines += 1;
            most = most.max(pipes);
            pipes = 0;
        }
    }
    (most.max(pipes) + 1).saturating_mul(lines)
}

/// Most over-budget tables named one by one; the rest are counted in the last warning.
const MAX_TABLE_WARNINGS: usize = 16;

/// Holds the document's GFM tables to `budget` cells, counted from the text before comrak
/// builds them: GFM fills every short row with empty cells up to the header's width, so a
/// 300-column header over 3000 rows of `|b` is 900,000 cells from 10 KB. A table that would
/// pass the budget stays a paragraph of text: its delimiter row gets a backslash before its
/// first character, so it no longer opens a table, and reads as written. The count errs high
/// (every line up to the next blank one is taken for a row, and every row has the header's
/// width), so a table is never larger than counted. Line numbers do not change.
fn limit_tables(text: Cow<'_, str>, budget: usize) -> (Cow<'_, str>, Vec<Diagnostic>) {
    // A delimiter row needs a `-` next to a `|` somewhere.
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"-|").is_none() && memchr::memmem::find(bytes, b"|-").is_none()
    {
        return (text, Vec::new());
    }
    // Most documents are far inside the budget: a bound found by a skim of the `|`s and line
    // breaks spares them the line-by-line scan.
    if cells_bound(bytes) <= budget {
        return (text, Vec::new());
    }
    let lines: Vec<(usize, &str)> = {
        let mut offset = 0;
        lines_inclusive(&text)
            .map(|l| {
                let start = offset;
                offset += l.len();
                (start, l)
            })
            .collect()
    };
    let blank: Vec<bool> = lines
        .iter()
        .map(|(_, l)| strip_container_prefix(l).trim().is_empty())
        .collect();
    // The next blank line at or after each line, found in one pass from the end (a count per
    // table would be quadratic in a document of delimiter rows).
    let mut next_blank = vec![lines.len(); lines.len() + 1];
    for i in (0..lines.len()).rev() {
        next_blank[i] = if blank[i] { i } else { next_blank[i + 1] };
    }
    let mut used = 0usize;
    let mut escapes = Vec::new();
    let mut diagnostics = Vec::new();
    let mut open_fence: Option<(char, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].1;
        let body = strip_container_prefix(line).trim();
        let parts = fence_parts(body);
        if let Some((ch, len)) = open_fence {
            if let Some((f, "")) = parts
                && f.starts_with(ch)
                && f.len() >= len
            {
                open_fence = None;
            }
            i += 1;
            continue;
        }
        if let Some((f, _)) = parts {
            open_fence = f.chars().next().map(|c| (c, f.len()));
            i += 1;
            continue;
        }
        let Some(columns) = delimiter_columns(body).filter(|_| i > 0 && !blank[i - 1]) else {
            i += 1;
            continue;
        };
        let end = next_blank[i + 1];
        let rows = end - i - 1;
        let cells = columns.saturating_mul(rows + 1);
        if used.saturating_add(cells) <= budget {
            used += cells;
            i = end;
            continue;
        }
        let first = line.len() - strip_container_prefix(line).trim_start().len();
        escapes.push(lines[i].0 + first);
        if diagnostics.len() < MAX_TABLE_WARNINGS {
            diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                code: Code::OverBudget,
                block: None,
                line: i,
                column: 1,
                path: String::new(),
                message: format!(
                    "the table here has {columns} columns and up to {rows} rows, {cells} cells with the empty ones GFM fills in; more than the {} cells left of the document's budget of {budget}, so it is shown as text",
                    budget - used
                ),
                hint: "split the table, or give it fewer columns; short rows are filled to the header's width".into(),
            });
        }
        // The rows of a table shown as text are lines of a paragraph: one of them may open a
        // table of its own, so they are looked at too.
        i += 1;
    }
    if escapes.is_empty() {
        return (text, diagnostics);
    }
    if escapes.len() > MAX_TABLE_WARNINGS
        && let Some(last) = diagnostics.last_mut()
    {
        last.message.push_str(&format!(
            "; {} more tables after it are shown as text too",
            escapes.len() - MAX_TABLE_WARNINGS
        ));
    }
    let mut out = String::with_capacity(text.len() + escapes.len());
    let mut from = 0;
    for at in escapes {
        out.push_str(&text[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&text[from..]);
    (Cow::Owned(out), diagnostics)
}

/// The number of columns of a GFM table delimiter row (`| --- | :-: |`), or `None` when
/// `body` is not one. Lenient: a line of only pipes, dashes, colons and spaces with a pipe and
/// a dash counts (a few more lines than GFM accepts, which only makes the count err high).
fn delimiter_columns(body: &str) -> Option<usize> {
    if !body.contains('|')
        || !body.contains('-')
        || !body
            .bytes()
            .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'))
    {
        return None;
    }
    let inner = body.strip_prefix('|').unwrap_or(body);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    Some(inner.split('|').count().max(1))
}

/// Fixes the one shape comrak cannot see through: a component fence whose JSON sits in a
/// nested ```json fence of the same length, where the inner closing fence closes the outer one.
/// The inner fence lines are blanked (same bytes, same lines), so positions do not move.
/// Blank lines may separate the component fence from the ```json line.
/// Returns, per rescue, the 1-based lines of the component fence and of the ```json fence.
fn rescue_nested_fences(src: &str) -> (Cow<'_, str>, Vec<(usize, usize)>) {
    // memmem's vector search: `str::contains` scans the whole document a byte at a time.
    if memchr::memmem::find(src.as_bytes(), b"json").is_none() {
        return (Cow::Borrowed(src), Vec::new());
    }
    let lines: Vec<(usize, &str)> = {
        let mut offset = 0;
        src.split_inclusive('\n')
            .map(|l| {
                let start = offset;
                offset += l.len();
                (start, l)
            })
            .collect()
    };
    let mut out: Option<String> = None;
    let mut rescued = Vec::new();
    let mut open_fence: Option<(char, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let body = strip_container_prefix(lines[i].1).trim();
        let parts = fence_parts(body);
        if let Some((ch, len)) = open_fence {
            if let Some((f, "")) = parts
                && f.starts_with(ch)
                && f.len() >= len
            {
                open_fence = None;
            }
            i += 1;
            continue;
        }
        let Some((fence, info)) = parts else {
            i += 1;
            continue;
        };
        let ch = fence.chars().next().unwrap_or('`');
        if Kind::from_tag(info).is_some()
            && let Some(open) = (i + 1..lines.len())
                .find(|&j| !strip_container_prefix(lines[j].1).trim().is_empty())
            && let Some((inner, "json")) = fence_parts(strip_container_prefix(lines[open].1).trim())
            // The search stops at the first line that closes either fence: past the outer
            // fence's end the shape cannot match, and an unbounded search is quadratic.
            && let Some(close) = (open + 1..lines.len())
                .find(|&j| {
                    matches!(fence_parts(strip_container_prefix(lines[j].1).trim()),
                        Some((f, "")) if (f.starts_with(&inner[..1]) && f.len() >= inner.len())
                            || (f.starts_with(ch) && f.len() >= fence.len()))
                })
                .filter(|&j| {
                    matches!(fence_parts(strip_container_prefix(lines[j].1).trim()),
                        Some((f, "")) if f.starts_with(&inner[..1]) && f.len() >= inner.len())
                })
            && let Some(outer) = (close + 1..lines.len())
                .find(|&j| !strip_container_prefix(lines[j].1).trim().is_empty())
            && matches!(fence_parts(strip_container_prefix(lines[outer].1).trim()),
                Some((f, "")) if f.starts_with(ch) && f.len() >= fence.len())
        {
            let buf = out.get_or_insert_with(|| src.to_string());
            for j in [open, close] {
                let (start, line) = lines[j];
                let prefix = line.len() - strip_container_prefix(line).len();
                buf.replace_range(start + prefix..start + line.len(), &blank(&line[prefix..]));
            }
            rescued.push((i + 1, open + 1));
            i = outer + 1;
            continue;
        }
        open_fence = Some((ch, fence.len()));
        i += 1;
    }
    match out {
        Some(s) => (Cow::Owned(s), rescued),
        None => (Cow::Borrowed(src), rescued),
    }
}

/// Strips block quote markers, list markers and indentation from the start of a line.
fn strip_container_prefix(line: &str) -> &str {
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start_matches([' ', '\t']);
        if let Some(r) = trimmed.strip_prefix('>') {
            rest = r;
            continue;
        }
        if let Some(r) = trimmed
            .strip_prefix(['-', '*', '+'])
            .filter(|r| r.starts_with(' '))
        {
            rest = r;
            continue;
        }
        let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
        if (1..10).contains(&digits)
            && let Some(r) = trimmed[digits..]
                .strip_prefix(['.', ')'])
                .filter(|r| r.starts_with(' '))
        {
            rest = r;
            continue;
        }
        return trimmed;
    }
}

/// The warnings a fenced code block that is not a component can earn: a tag that looks like a
/// failed attempt at one (`unknown_tag`), and a component fence caught inside it
/// (`component_in_code_block`). `line` and `column` are the opening fence's; `closed` says
/// whether a closing fence ends the block. Public for callers that find fences with another
/// parser (the mdBook preprocessor reads chapters as mdBook does).
pub fn code_block_warnings(
    info: &str,
    literal: &str,
    closed: bool,
    line: usize,
    column: usize,
) -> Vec<Diagnostic> {
    let json_body = literal.trim_start().starts_with('{');
    unknown_tag(info, json_body, line, column)
        .into_iter()
        .chain(swallowed_component(literal, closed, line, column))
        .collect()
}

/// A warning when a component fence sits inside another code block by mistake, so it shows as
/// code: the other block is never closed (it runs on to the end of the document), or it is
/// closed by the component's own closing fence (same fence, no longer outer one). A complete
/// component shown inside a longer fence (````markdown … ````) is an example, and is left alone.
fn swallowed_component(
    literal: &str,
    closed: bool,
    line: usize,
    column: usize,
) -> Option<Diagnostic> {
    if !has_fence_run(literal.as_bytes()) {
        return None;
    }
    fn fence(line: &str) -> Option<(&str, &str)> {
        fence_parts(line.trim_start())
    }
    let lines: Vec<&str> = literal.lines().collect();
    for (k, l) in lines.iter().enumerate() {
        let Some((run, info)) = fence(l) else {
            continue;
        };
        let Some(kind) = Kind::from_tag(info) else {
            continue;
        };
        // A closing fence: the same character, at least as long, nothing after it.
        let closes = lines[k + 1..].iter().any(|l| {
            fence(l).is_some_and(|(r, rest)| {
                r.as_bytes()[0] == run.as_bytes()[0] && r.len() >= run.len() && rest.is_empty()
            })
        });
        if closed && closes {
            continue;
        }
        let at = line + 1 + k;
        let tag = kind.tag();
        let (message, hint) = if closed {
            (
                format!("the {tag} fence at line {at} is shown as code: the code block opened at line {line} ends at its closing fence"),
                "to show a component as an example, open the outer block with a longer fence (````); otherwise close the code block before the component".to_string(),
            )
        } else {
            (
                format!(
                    "the {tag} fence at line {at} is shown as code: the code block opened at line {line} is never closed"
                ),
                "close the code block with ``` before the component".to_string(),
            )
        };
        return Some(Diagnostic {
            severity: Severity::Warning,
            code: Code::ComponentInCodeBlock,
            block: None,
            line,
            column,
            path: String::new(),
            message,
            hint,
        });
    }
    None
}

/// Whether `text` holds three backticks or three tildes in a row, as any fence line must: most
/// code blocks hold neither character, and `memchr2` finds that without building a substring
/// searcher (two `memmem::find` calls built one each, per code block).
fn has_fence_run(text: &[u8]) -> bool {
    memchr::memchr2_iter(b'`', b'~', text)
        .any(|i| text.get(i + 1..i + 3) == Some(&[text[i], text[i]][..]))
}

/// A warning for a fence tag that looks like a failed attempt at a component.
fn unknown_tag(info: &str, json_body: bool, line: usize, column: usize) -> Option<Diagnostic> {
    // Most tags (`rust`, `json`) are lowercase already: no copy for them.
    let lower = if info
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        Cow::Owned(info.to_lowercase())
    } else {
        Cow::Borrowed(info)
    };
    let first = lower.split_whitespace().next().unwrap_or("");
    let hint: Option<String> = if Kind::from_tag(first).is_some() {
        if first == info.split_whitespace().next().unwrap_or("") {
            Some(format!(
                "put nothing after the tag: the opening fence is exactly ```{first}"
            ))
        } else {
            Some(format!("write the tag in lowercase: ```{first}"))
        }
    } else {
        let tags: Vec<&str> = Kind::ALL.iter().map(|k| k.tag()).collect();
        let invented =
            Kind::misnamed_as(first.trim_start_matches('{').trim_end_matches('}')).map(Kind::tag);
        // A real tag with something after it (```youtube-video, ```allocate:budget) around a
        // JSON body. Without JSON it is more likely another tool's language (```mermaid-js
        // holding raw Mermaid), left alone.
        let extended = || {
            tags.iter().copied().filter(|_| json_body).find(|tag| {
                first
                    .strip_prefix(tag)
                    .is_some_and(|rest| rest.starts_with(['-', '_', '.', ':', '/']))
            })
        };
        invented
            .or_else(extended)
            .or_else(|| closest(first, &tags))
            .map(|tag| format!("did you mean ```{tag}? That is the component's tag"))
    };
    let hint = hint?;
    Some(Diagnostic {
        severity: Severity::Warning,
        code: Code::UnknownTag,
        block: None,
        line,
        column,
        path: String::new(),
        message: format!("```{info} is not a component tag, so this fence renders as plain code"),
        hint,
    })
}

/// The bare-paste shortcut: a document that is only one JSON object, raw or in a ```json fence.
fn bare_paste<'a>(arena: &'a Arena<'a>, src: &str, lines: &LineIndex) -> Option<Parsed<'a>> {
    // A byte-order mark is an encoding signature, not content (comrak ignores it too).
    let body = src.strip_prefix('\u{FEFF}').unwrap_or(src);
    let trimmed = body.trim();
    let lead = src.len() - body.trim_start().len();
    let (text_start, text) = if trimmed.starts_with('{') && trimmed.ends_with('}') {
        (lead, trimmed)
    } else {
        let first_line_end = trimmed.find('\n')?;
        let (fence, info) = fence_parts(trimmed[..first_line_end].trim())?;
        if info != "json" {
            return None;
        }
        let body = &trimmed[first_line_end + 1..];
        let close = body.trim_end().rfind('\n').map_or(0, |i| i + 1);
        let last = body.trim_end()[close..].trim();
        if !(last.starts_with(fence) && fence_parts(last).is_some_and(|(_, i)| i.is_empty())) {
            return None;
        }
        let inner = &body[..close];
        if inner.lines().any(|l| fence_parts(l.trim()).is_some()) {
            return None;
        }
        (lead + first_line_end + 1, inner)
    };
    // One arena for the shape test and then the block's own check, which empties it first.
    let mut json_arena = Bump::new();
    let kind = match json::parse(text, &json_arena) {
        Ok(parsed) => bare_kind(&parsed.value),
        Err(_) => json::rescue_smart_quotes(text).and_then(|t| {
            json::parse(&t, &json_arena)
                .ok()
                .and_then(|p| bare_kind(&p.value))
        }),
    }?;
    // The block's line is where it starts: its ```json fence, when it has one.
    let line = lines.locate(lead).0.max(1);
    let map = PosMap::offset(lines, text_start);
    let (component, mut diagnostics) = check_block("b1", kind, text, &map, &mut json_arena);
    diagnostics.insert(
        0,
        Diagnostic {
            severity: Severity::Warning,
            code: Code::BareJsonWrapped,
            block: Some("b1".into()),
            line,
            column: 1,
            path: String::new(),
            message: format!(
                "the document is a bare JSON object; it was read as a ```{} block",
                kind.tag()
            ),
            hint: format!("wrap the JSON in a ```{} fence", kind.tag()),
        },
    );
    let root = arena.alloc(AstNode::from(NodeValue::Document));
    let node = arena.alloc(AstNode::from(NodeValue::Paragraph));
    root.append(node);
    Some(Parsed {
        root,
        blocks: vec![Block {
            info: BlockInfo {
                id: "b1".into(),
                kind,
                valid: component.is_some(),
                line,
            },
            source: text.to_string(),
            component,
        }],
        nodes: vec![node],
        named: Vec::new(),
        footnotes: Vec::new(),
        diagnostics,
        raw_html: false,
        bare: true,
        front_matter: None,
        rtl_possible: crate::html::i18n::may_hold_rtl(src),
    })
}

/// A document that is one `{ … }` but not valid JSON: probably a bare component with a typo,
/// which would otherwise render silently as prose.
fn broken_bare_json(src: &str, lines: &LineIndex) -> Option<Diagnostic> {
    let body = src.strip_prefix('\u{FEFF}').unwrap_or(src);
    let trimmed = body.trim();
    if !(trimmed.starts_with('{') && trimmed.ends_with('}')) {
        return None;
    }
    let start = src.len() - body.trim_start().len();
    let arena = Bump::new();
    let err = json::parse(trimmed, &arena).err()?;
    if json::rescue_smart_quotes(trimmed).is_some_and(|t| json::parse(&t, &arena).is_ok()) {
        return None;
    }
    let (line, column) = lines.locate(start + err.offset);
    Some(Diagnostic {
        severity: Severity::Warning,
        code: Code::InvalidJson,
        block: None,
        line,
        column,
        path: String::new(),
        message: format!(
            "the document looks like a bare component JSON object but is not valid JSON ({}); it is shown as prose",
            err.message
        ),
        hint: "fix the JSON, or put it in a component fence such as ```questionnaire".into(),
    })
}

/// Recognizes a bare object by its shape (contract §1).
fn bare_kind(value: &Json) -> Option<Kind> {
    Kind::of_bare_object(value)
}

/// Byte offsets of line starts in the original document, found the first time a position is
/// asked for: a document without diagnostics never needs them.
pub struct LineIndex<'s> {
    src: &'s str,
    starts: OnceCell<Vec<usize>>,
}

impl<'s> LineIndex<'s> {
    pub fn new(src: &'s str) -> Self {
        LineIndex {
            src,
            starts: OnceCell::new(),
        }
    }

    fn starts(&self) -> &[usize] {
        self.starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(memchr::memchr_iter(b'\n', self.src.as_bytes()).map(|i| i + 1));
            starts
        })
    }

    /// 1-based (line, column in chars) of a byte offset.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        let starts = self.starts();
        let line = starts.partition_point(|s| *s <= offset).max(1);
        let mut start = starts[line - 1];
        // A byte-order mark at the very start takes no column.
        if start == 0 && self.src.starts_with('\u{FEFF}') {
            start = '\u{FEFF}'.len_utf8().min(offset);
        }
        let column = self
            .src
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }

    /// The text of a 1-based line, without its line break.
    pub fn line(&self, n: usize) -> &'s str {
        let starts = self.starts();
        let Some(&start) = starts.get(n.wrapping_sub(1)) else {
            return "";
        };
        let end = starts.get(n).copied().unwrap_or(self.src.len());
        self.src[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// Maps byte offsets in a block's text to positions in the original document. The per-line
/// table is built the first time a position is asked for (most blocks report nothing).
pub struct PosMap<'t> {
    index: &'t LineIndex<'t>,
    origin: Origin,
    text: &'t str,
    /// Per line of the block's text: (byte start in the text, original line, prefix chars).
    lines: OnceCell<Vec<(usize, usize, usize)>>,
    /// The last position located: (line index, byte offset, chars from the line's start).
    /// Diagnostics arrive roughly in text order, so counting from there keeps many
    /// diagnostics on one long line linear instead of quadratic.
    cursor: Cell<(usize, usize, usize)>,
}

/// Where a [`PosMap`]'s text comes from.
#[derive(Clone, Copy)]
enum Origin {
    /// A fence's literal, whose first line follows the fence on this 1-based line.
    Fence(usize),
    /// A verbatim slice of the document from this byte.
    Slice(usize),
}

impl<'t> PosMap<'t> {
    /// For a fence's literal: its lines are the original lines after the fence line, minus the
    /// container prefix (indentation, `>`, list indentation) comrak stripped.
    pub fn for_fence(index: &'t LineIndex<'t>, literal: &'t str, fence_line: usize) -> PosMap<'t> {
        PosMap::new(index, Origin::Fence(fence_line), literal)
    }

    /// For text that is a verbatim slice of the document starting at byte `start`.
    pub fn offset(index: &'t LineIndex<'t>, start: usize) -> PosMap<'t> {
        PosMap::new(index, Origin::Slice(start), &index.src[start..])
    }

    fn new(index: &'t LineIndex<'t>, origin: Origin, text: &'t str) -> PosMap<'t> {
        PosMap {
            index,
            origin,
            text,
            lines: OnceCell::new(),
            cursor: Cell::new((0, 0, 0)),
        }
    }

    fn lines(&self) -> &[(usize, usize, usize)] {
        self.lines.get_or_init(|| {
            let mut lines = Vec::new();
            let mut offset = 0;
            for (i, l) in self.text.split_inclusive('\n').enumerate() {
                lines.push(match self.origin {
                    Origin::Fence(fence_line) => {
                        let orig_line = fence_line + 1 + i;
                        let content = l.trim_end_matches(['\n', '\r']);
                        let prefix = self
                            .index
                            .line(orig_line)
                            .chars()
                            .count()
                            .saturating_sub(content.chars().count());
                        (offset, orig_line, prefix)
                    }
                    Origin::Slice(start) => {
                        let (line, col) = self.index.locate(start + offset);
                        (offset, line, col - 1)
                    }
                });
                offset += l.len();
            }
            if lines.is_empty() {
                lines.push(match self.origin {
                    Origin::Fence(fence_line) => (0, fence_line + 1, 0),
                    Origin::Slice(start) => (0, self.index.locate(start).0, 0),
                });
            }
            lines
        })
    }

    /// 1-based (line, column) in the original document of byte `offset` in the block's text.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let lines = self.lines();
        let i = lines.partition_point(|(s, _, _)| *s <= offset).max(1) - 1;
        let (start, line, prefix) = lines[i];
        let end = offset.min(self.text.len());
        let count = |a: usize, b: usize| self.text.get(a..b).map(|s| s.chars().count());
        let (ci, coff, cchars) = self.cursor.get();
        let near = if ci != i {
            None
        } else if coff <= end {
            count(coff, end).map(|n| cchars + n)
        } else if coff - end < end - start {
            count(end, coff).map(|n| cchars - n)
        } else {
            None
        };
        let chars = near.unwrap_or_else(|| count(start, end).unwrap_or(0));
        self.cursor.set((i, end, chars));
        (line, prefix + chars + 1)
    }
}

#[cfg(test)]
mod shortcode_tests {
    #[test]
    fn only_text_that_could_hold_a_shortcode_is_searched_for_one() {
        for yes in [
            ":tada:",
            "a :+1: b",
            "x:white_check_mark:",
            "10:30:00",
            ":A-b_9:",
        ] {
            assert!(super::may_hold_shortcode(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            ":",
            "::",
            "a: b: c",
            "{\"a\":1,\"b\":2}",
            "http://x",
            ": tada:",
            ":tada",
        ] {
            assert!(!super::may_hold_shortcode(no.as_bytes()), "{no}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str) -> Vec<&'static str> {
        let arena = Arena::new();
        parse(&arena, src)
            .diagnostics
            .iter()
            .map(|d| d.code.name())
            .collect()
    }

    /// Warnings about other fences and each block's diagnostics come in document order, though
    /// the blocks are checked after the walk that finds them.
    #[test]
    fn fence_warnings_and_block_diagnostics_keep_document_order() {
        let doc = "```Single-Choice\n{}\n```\n\n```youtube\n{ \"version\": \"1\" }\n```\n\n\
                   ```Allocate\n{}\n```\n\n```youtube\n{ \"version\": \"1\" }\n```\n\n\
                   ```Prioritize\n{}\n```\n";
        let arena = Arena::new();
        let lines: Vec<usize> = parse(&arena, doc)
            .diagnostics
            .iter()
            .map(|d| d.line)
            .collect();
        // The fences' tags at lines 1, 9 and 17; the blocks' missing fields on their JSON lines.
        assert_eq!(lines, [1, 6, 9, 14, 17]);
    }

    /// comrak reads a NUL as U+FFFD (three bytes) and a lone `\r` as a line end, so its
    /// positions need not fall on this text's character boundaries: reopening an unclosed
    /// HTML block must not slice inside a character (found by the fuzz target).
    #[test]
    fn an_unclosed_html_block_after_nuls_and_lone_crs_is_reopened_without_a_panic() {
        let doc = "<?8\u{10}\0\r><?\u{1b}\n\0\r><?\u{1b}\n=^\0?\0\u{1}\0\u{10}\0\0\0]]]]~?";
        let arena = Arena::new();
        let parsed = parse(&arena, doc);
        assert!(parsed.blocks.is_empty());
        let _ = crate::render(doc, &crate::Options::default());
    }

    /// The skim's bound is never below the cells comrak builds, whatever the line breaks: a
    /// table it let through unscanned could not pass the budget.
    #[test]
    fn the_cell_bound_is_never_below_the_cells_built() {
        let header = format!("|{}\n|{}\n", "a|".repeat(40), "-|".repeat(40));
        for eol in ["\n", "\r\n", "\r"] {
            let doc = format!("{header}{}", "|b\n".repeat(200)).replace('\n', eol);
            let arena = Arena::new();
            let root = comrak::parse_document(&arena, &doc, &comrak_options(false));
            let cells = comrak::arena_tree::Node::descendants(root)
                .filter(|n| matches!(n.data.borrow().value, NodeValue::TableCell))
                .count();
            assert!(cells >= 40 * 200, "{eol:?}: {cells} cells built");
            assert!(cells_bound(doc.as_bytes()) >= cells, "{eol:?}");
            // And a budget below the table's size still turns it into text.
            let (text, warnings) = limit_tables(Cow::Borrowed(&doc), 1000);
            assert_eq!(warnings.len(), 1, "{eol:?}");
            assert_ne!(text, doc, "{eol:?}");
        }
    }

    /// Looking for GitHub alerts reads a line's whole run of `>` at each block quote it opens:
    /// past the budget the parse leaves alerts out and names the line of the longest run; short
    /// runs, however many, keep them.
    #[test]
    fn a_long_run_of_quote_markers_turns_alerts_off_with_a_warning() {
        let alerts = |src: &str| {
            let arena = arena_for(src);
            let parsed = parse(&arena, src);
            let drawn = comrak::arena_tree::Node::descendants(parsed.root)
                .filter(|n| matches!(n.data.borrow().value, NodeValue::Alert(_)))
                .count();
            let warnings: Vec<Diagnostic> = parsed
                .diagnostics
                .into_iter()
                .filter(|d| d.code == Code::OverBudget)
                .collect();
            (drawn, warnings)
        };
        let alert = "> [!NOTE]\n> Read this.\n\n";
        let nested = "> > > deep\n\n".repeat(5000);
        assert_eq!(alerts(&format!("{alert}{nested}{alert}")), (2, vec![]));

        let long = format!("Text.\n\n{} deep\n", ">".repeat(20_000));
        let (drawn, warnings) = alerts(&format!("{alert}{long}"));
        assert_eq!(drawn, 0);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let w = &warnings[0];
        assert_eq!((w.line, w.column, w.severity), (6, 1, Severity::Warning));
        assert!(
            w.message.starts_with("20000 `>` in a row here"),
            "{}",
            w.message
        );
        assert!(w.hint.contains("`> > >`"), "{}", w.hint);
    }

    /// A parse whose render was cancelled stops and leaves an empty tree; the same text parses
    /// whole when nothing cancelled it.
    #[test]
    fn a_cancelled_render_stops_its_parse() {
        let src = "Some prose.\n\n".repeat(2000);
        let children = |cancelled: bool| {
            let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(cancelled));
            crate::budget::with_limits(crate::Limits::default(), Some(flag), || {
                let arena = arena_for(&src);
                parse(&arena, &src).root.children().count()
            })
        };
        assert_eq!(children(false), 2000);
        assert_eq!(children(true), 0);
    }

    #[test]
    fn fence_runs_are_found_as_a_substring_search_would() {
        let texts = [
            "",
            "`",
            "``",
            "```",
            "~~~",
            "~~`",
            "`~~",
            "a``b``c",
            "x ``` y",
            "ab~~~",
            "`` ~~ `",
            "\u{e9}``\u{e9}~~~",
            "````",
            "~`~`~",
            "let s = `code`;\n``\n",
        ];
        for text in texts {
            let expected = text.contains("```") || text.contains("~~~");
            assert_eq!(has_fence_run(text.as_bytes()), expected, "{text:?}");
        }
    }

    #[test]
    fn finds_fences_in_lists_and_quotes() {
        let src = "- item\n\n  ```single-choice\n  {\"version\":\"1\",\"question\":\"Q?\",\"options\":[\"A\",\"B\"]}\n  ```\n\n> ```open-question\n> {\"version\":\"1\",\"question\":\"Why?\"}\n> ```\n";
        let arena = Arena::new();
        let p = parse(&arena, src);
        assert_eq!(p.blocks.len(), 2);
        assert!(p.blocks.iter().all(|b| b.info.valid), "{:?}", p.diagnostics);
        assert_eq!(p.blocks[0].info.line, 3);
        assert_eq!(p.blocks[1].info.line, 7);
    }

    #[test]
    fn positions_point_into_the_original_markdown() {
        let src = "# T\n\n> ```single-choice\n> {\"version\": 1,\n>  \"question\": \"Q?\", \"options\": [\"A\", \"B\"]}\n> ```\n";
        let arena = Arena::new();
        let p = parse(&arena, src);
        let d = &p.diagnostics[0];
        assert_eq!(
            (d.code, d.line, d.column, d.path.as_str()),
            (Code::WrongVersion, 4, 15, "/version")
        );
    }

    #[test]
    fn diagnostics_point_at_the_exact_place() {
        let src = "Intro\n\n```single-choice\n{ \"version\": \"1\",\n  \"question\": \"Q?\",\n    \u{201c}options\u{201d}: [\"A\", \"B\"] }\n```\n";
        let arena = Arena::new();
        let p = parse(&arena, src);
        let d = &p.diagnostics[0];
        assert_eq!((d.code, d.line, d.column), (Code::SmartQuotesRescued, 6, 5));
        // A repeated key deep in the block: the path names where it sits.
        let src = "```prioritize\n{\"version\": \"1\", \"items\": [{\"id\": \"a\", \"label\": \"A\"}, {\"id\": \"b\", \"id\": \"c\", \"label\": \"C\"}]}\n```\n";
        let p = parse(&arena, src);
        let d = &p.diagnostics[0];
        assert_eq!(
            (d.code, d.path.as_str()),
            (Code::DuplicateKey, "/items/1/id")
        );
        // `q` beside `question`: the hint names the alias, not a field `q` is spelled like.
        let src = "```single-choice\n{\"version\": \"1\", \"q\": \"Q?\", \"question\": \"R?\", \"options\": [\"A\", \"B\"]}\n```\n";
        let p = parse(&arena, src);
        let d = &p.diagnostics[0];
        assert_eq!((d.code, d.path.as_str()), (Code::UnknownField, "/q"));
        assert!(d.message.contains("alias of `question`"), "{}", d.message);
        // One label of several matches no option: the path names that element.
        let src = "```multi-choice\n{\"version\": \"1\", \"question\": \"Q?\", \"options\": [\"A\", \"B\"], \"recommended\": [\"A\", \"Z\"]}\n```\n";
        let p = parse(&arena, src);
        let d = &p.diagnostics[0];
        assert_eq!(
            (d.code, d.path.as_str()),
            (Code::RecommendedMismatch, "/recommended/1")
        );
    }

    #[test]
    fn an_invalid_rescued_block_shows_its_json_fence_as_written() {
        for (src, expected) in [
            (
                "A\n\n````single-choice\n```json\n{\"version\": 1}\n```\n````\n",
                "```json\n{\"version\": 1}\n```\n",
            ),
            (
                "> ```open-question\r\n> ```json\r\n> {\"q\": 1}\r\n> ```\r\n> ```\r\n",
                "```json\n{\"q\": 1}\n```\n",
            ),
        ] {
            let arena = Arena::new();
            let p = parse(&arena, src);
            assert!(!p.blocks[0].info.valid);
            assert_eq!(p.blocks[0].source.replace('\r', ""), expected);
        }
    }

    #[test]
    fn locate_counts_the_same_in_any_order() {
        let src = "```x\n> {\"é\": 1, \"ü\": [2, 3]}\n  second line ü\n```\n";
        let index = LineIndex::new(src);
        let literal = "{\"é\": 1, \"ü\": [2, 3]}\nsecond line ü\n";
        let map = PosMap::for_fence(&index, literal, 1);
        let naive = |offset: usize| {
            let fresh = PosMap::for_fence(&index, literal, 1);
            fresh.locate(offset)
        };
        let boundaries: Vec<usize> = (0..=literal.len())
            .filter(|&o| literal.is_char_boundary(o))
            .collect();
        for &o in boundaries
            .iter()
            .chain(boundaries.iter().rev())
            .chain([&3, &30, &1, &12])
        {
            assert_eq!(map.locate(o), naive(o), "offset {o}");
        }
        assert_eq!(map.locate(0), (2, 3));
        assert_eq!(map.locate(literal.find("second").unwrap()), (3, 3));
    }

    #[test]
    fn nested_json_fence_is_rescued_without_moving_lines() {
        let src = "```questionnaire\n```json\n{\"version\":\"1\",\"questions\":[{\"id\":\"q1\",\"question\":\"Q?\",\"options\":[\"A\"]}]}\n```\n```\n\nAfter.\n";
        let arena = Arena::new();
        let p = parse(&arena, src);
        assert_eq!(p.blocks.len(), 1);
        assert!(p.blocks[0].info.valid, "{:?}", p.diagnostics);
        assert_eq!(codes(src), vec!["nested_json_fence_rescued"]);
    }

    #[test]
    fn near_miss_tags_warn() {
        assert_eq!(codes("```multiple-choice\n{}\n```\n"), vec!["unknown_tag"]);
        assert_eq!(codes("```prioritise\n{}\n```\n"), vec!["unknown_tag"]);
        assert_eq!(codes("```Single-Choice\n{}\n```\n"), vec!["unknown_tag"]);
        for near in [
            "prioritize-list",
            "youtube-video",
            "mermaid-diagram",
            "mermaid.js",
            "allocate:budget",
            "youtube_embed",
            "prioritization",
            "alloc",
        ] {
            assert_eq!(
                codes(&format!("```{near}\n{{}}\n```\n")),
                vec!["unknown_tag"],
                "{near}"
            );
        }
        // Without a JSON body, a suffixed tag is another tool's language: plain code.
        assert!(codes("```mermaid-js\ngraph TD; A-->B;\n```\n").is_empty());
        // Without a JSON body, a suffixed tag is another tool's language: plain code.
        assert!(codes("```mermaid-js\ngraph TD; A-->B;\n```\n").is_empty());
        // Other languages with a suffix stay plain code.
        assert!(codes("```json-ld\n{}\n```\n").is_empty());
        assert!(codes("```shell-session\n$ ls\n```\n").is_empty());
        assert!(codes("```rust\nfn main() {}\n```\n").is_empty());
        assert!(codes("```json\n{}\n```\nText\n").is_empty());
    }

    #[test]
    fn a_fenced_bare_paste_starts_at_its_fence() {
        let arena = Arena::new();
        let p = parse(
            &arena,
            "\n```json\n{\"version\":\"1\",\"id\":\"dQw4w9WgXcQ\"}\n```\n",
        );
        assert_eq!(
            (p.blocks[0].info.kind, p.blocks[0].info.line),
            (Kind::Youtube, 2)
        );
        let p = parse(&arena, "\n\n{\"version\":\"1\",\"id\":\"dQw4w9WgXcQ\"}\n");
        assert_eq!(p.blocks[0].info.line, 3);
    }

    #[test]
    fn bare_paste_shapes() {
        let cases = [
            (r#"{"version":"1","questions":[]}"#, Kind::Questionnaire),
            (
                r#"{"version":"1","items":[{"id":"a","label":"A","weight":1}]}"#,
                Kind::Allocate,
            ),
            (
                r#"{"version":"1","items":[{"id":"a","label":"A"}]}"#,
                Kind::Prioritize,
            ),
            (
                r#"{"version":"1","question":"Q","options":["A","B"]}"#,
                Kind::SingleChoice,
            ),
            (
                r#"{"version":"1","question":"Q","options":["A","B"],"multi":true}"#,
                Kind::MultiChoice,
            ),
            (r#"{"version":"1","question":"Q"}"#, Kind::OpenQuestion),
            (
                r#"{"version":"1","source":"graph TD; A-->B"}"#,
                Kind::Mermaid,
            ),
            (r#"{"version":"1","id":"dQw4w9WgXcQ"}"#, Kind::Youtube),
        ];
        for (json, kind) in cases {
            let arena = Arena::new();
            let p = parse(&arena, &format!("\n{json}\n"));
            assert!(p.bare, "{json}");
            assert_eq!(p.blocks[0].info.kind, kind, "{json}");
            let arena = Arena::new();
            let p = parse(&arena, &format!("```json\n{json}\n```\n"));
            assert_eq!(p.blocks[0].info.kind, kind, "fenced {json}");
        }
        let arena = Arena::new();
        assert!(!parse(&arena, "{not json}").bare);
    }
}
