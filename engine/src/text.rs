//! `--format text`: a readable plain-text version of the preview, the `text/plain` half of a
//! `multipart/alternative` email.

use crate::components::Component;
use crate::components::allocate::{format_number, round_to_total};
use crate::components::question::Mode;
use crate::document::Block;
use crate::html::i18n::{Lang, Strings};
use comrak::nodes::{AstNode, ListType, NodeValue};

/// The whole document as text: prose from the AST, each component as a plain preview.
pub fn render<'a>(
    root: &'a AstNode<'a>,
    blocks: &[Block],
    nodes: &[&'a AstNode<'a>],
    lang: Lang,
    respond_url: Option<&str>,
) -> String {
    let cx = Cx {
        blocks,
        nodes,
        t: lang.strings(),
    };
    let mut out = cx.children(root);
    if let Some(url) = respond_url {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&format!("{}: {url}", cx.t.respond));
    }
    out.push('\n');
    out
}

struct Cx<'c, 'a> {
    blocks: &'c [Block],
    nodes: &'c [&'a AstNode<'a>],
    t: &'static Strings,
}

impl<'a> Cx<'_, 'a> {
    fn component_of(&self, node: &'a AstNode<'a>) -> Option<&Block> {
        // Components are placeholders (`Raw`) by now: only those are looked up.
        if !matches!(node.data().value, NodeValue::Raw(_)) {
            return None;
        }
        let i = self.nodes.iter().position(|n| std::ptr::eq(*n, node))?;
        self.blocks.get(i)
    }

    fn children(&self, node: &'a AstNode<'a>) -> String {
        node.children()
            .map(|c| self.block(c))
            .filter(|s| !s.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    fn block(&self, node: &'a AstNode<'a>) -> String {
        if let Some(b) = self.component_of(node) {
            return self.component(b);
        }
        let data = node.data();
        match &data.value {
            NodeValue::Heading(h) => {
                let text = inline(node);
                match h.level {
                    1 => format!("{text}\n{}", "=".repeat(text.chars().count().max(3))),
                    2 => format!("{text}\n{}", "-".repeat(text.chars().count().max(3))),
                    n => format!("{} {text}", "#".repeat(usize::from(n))),
                }
            }
            NodeValue::Paragraph => inline(node),
            NodeValue::BlockQuote => prefix_lines(&self.children(node), "> ", "> "),
            NodeValue::List(list) => {
                let mut items = Vec::new();
                for (i, item) in node.children().enumerate() {
                    let marker = match list.list_type {
                        ListType::Bullet => "- ".to_string(),
                        ListType::Ordered => format!("{}. ", list.start + i),
                    };
                    let check = match &item.data().value {
                        NodeValue::TaskItem(t) => {
                            if t.symbol.is_some() {
                                "[x] "
                            } else {
                                "[ ] "
                            }
                        }
                        _ => "",
                    };
                    let body = format!("{check}{}", self.children(item));
                    items.push(prefix_lines(
                        &body,
                        &marker,
                        &" ".repeat(marker.chars().count()),
                    ));
                }
                items.join(if list.tight { "\n" } else { "\n\n" })
            }
            NodeValue::CodeBlock(cb) => prefix_lines(cb.literal.trim_end(), "    ", "    "),
            NodeValue::ThematicBreak => "----".to_string(),
            NodeValue::Table(_) => node
                .children()
                .map(|row| {
                    row.children()
                        .map(|cell| inline(cell))
                        .collect::<Vec<_>>()
                        .join(" | ")
                })
                .collect::<Vec<_>>()
                .join("\n"),
            NodeValue::FootnoteDefinition(f) => format!("[^{}]: {}", f.name, self.children(node)),
            NodeValue::HtmlBlock(_) | NodeValue::Raw(_) => String::new(),
            _ => self.children(node),
        }
    }

    fn component(&self, b: &Block) -> String {
        let t = self.t;
        let Some(component) = &b.component else {
            return prefix_lines(b.source.trim_end(), "    ", "    ");
        };
        let mut lines: Vec<String> = Vec::new();
        match component {
            Component::Questions(set) => {
                if let Some(title) = &set.title {
                    lines.push(title.to_uppercase());
                }
                if let Some(r) = &set.routing {
                    lines.push(r.return_prompt.clone());
                }
                for q in &set.questions {
                    if !lines.is_empty() {
                        lines.push(String::new());
                    }
                    lines.push(format!("Q: {}", q.text));
                    if let Some(c) = &q.context {
                        lines.push(format!("   {c}"));
                    }
                    let glyph = if q.mode == Mode::Multi { "[ ]" } else { "( )" };
                    match q.mode {
                        Mode::Single | Mode::Multi => {
                            if q.mode == Mode::Multi {
                                lines.push(format!("   ({})", t.select_all));
                            }
                            for (i, o) in q.options.iter().enumerate() {
                                let rec = if q.recommended.contains(&i) {
                                    format!(" ({})", t.recommended)
                                } else {
                                    String::new()
                                };
                                lines.push(format!("   {glyph} {o}{rec}"));
                            }
                            lines.push(format!("   {glyph} {} ____", q.other_label(t)));
                        }
                        Mode::FreeText => lines.push(format!("   {} ____", q.other_label(t))),
                        Mode::Open => lines.push(format!("   {}: ____", t.your_answer)),
                    }
                }
            }
            Component::Prioritize(p) => {
                if let Some(title) = &p.title {
                    lines.push(title.to_uppercase());
                }
                if let Some(i) = &p.instruction {
                    lines.push(i.clone());
                }
                for (n, item) in p.items.iter().enumerate() {
                    let context = item
                        .context
                        .as_ref()
                        .map(|c| format!(" — {c}"))
                        .unwrap_or_default();
                    lines.push(format!("{}. {}{context}", n + 1, item.label));
                }
                if let Some(r) = &p.routing {
                    lines.push(r.return_prompt.clone());
                }
            }
            Component::Allocate(a) => {
                if let Some(title) = &a.title {
                    lines.push(title.to_uppercase());
                }
                if let Some(i) = &a.instruction {
                    lines.push(i.clone());
                }
                let shown = round_to_total(&a.weights, a.total);
                for (item, w) in a.items.iter().zip(&shown) {
                    let filled = if a.total > 0.0 {
                        ((w / a.total) * 20.0).round() as usize
                    } else {
                        0
                    };
                    let bar = format!(
                        "{}{}",
                        "#".repeat(filled.min(20)),
                        ".".repeat(20 - filled.min(20))
                    );
                    lines.push(format!(
                        "{bar} {}{} {}",
                        format_number(*w),
                        a.unit,
                        item.label
                    ));
                }
                lines.push(format!("{}: {}{}", t.total, format_number(a.total), a.unit));
                if let Some(r) = &a.routing {
                    lines.push(r.return_prompt.clone());
                }
            }
            Component::Youtube(y) => {
                let title = y.title.as_deref().unwrap_or(t.video);
                lines.push(format!(
                    "▶ {title}: https://www.youtube.com/watch?v={}",
                    y.id
                ));
            }
            Component::Mermaid(m) => {
                lines.push(
                    format!("{}: {}", t.diagram, m.title.as_deref().unwrap_or(""))
                        .trim_end_matches(": ")
                        .to_string(),
                );
                match &m.chart {
                    Some(chart) => {
                        for e in &chart.edges {
                            let label = e
                                .label
                                .as_ref()
                                .map(|l| format!(" ({l})"))
                                .unwrap_or_default();
                            lines.push(format!(
                                "  {} → {}{label}",
                                chart.label_of(&e.from),
                                chart.label_of(&e.to)
                            ));
                        }
                    }
                    None => lines.push(prefix_lines(m.source.trim_end(), "    ", "    ")),
                }
            }
        }
        lines.join("\n")
    }
}

/// The text of an inline container: links as `text (url)`, images as their alt text.
fn inline<'a>(node: &'a AstNode<'a>) -> String {
    let mut out = String::new();
    for child in node.children() {
        let data = child.data();
        match &data.value {
            NodeValue::Text(t) => out.push_str(t),
            NodeValue::Code(c) => {
                out.push('`');
                out.push_str(&c.literal);
                out.push('`');
            }
            NodeValue::SoftBreak => out.push(' '),
            NodeValue::LineBreak => out.push('\n'),
            NodeValue::Link(link) => {
                let text = inline(child);
                if link.url.is_empty() || link.url == text || link.url == format!("mailto:{text}") {
                    out.push_str(&text);
                } else {
                    out.push_str(&format!("{text} ({})", link.url));
                }
            }
            NodeValue::HtmlInline(_) => {}
            NodeValue::FootnoteReference(f) => out.push_str(&format!("[^{}]", f.name)),
            _ => out.push_str(&inline(child)),
        }
    }
    out
}

fn prefix_lines(text: &str, first: &str, rest: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let p = if i == 0 { first } else { rest };
            if l.is_empty() {
                p.trim_end().to_string()
            } else {
                format!("{p}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
