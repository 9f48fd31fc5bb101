//! `--format text`: a readable plain-text version of the preview, the `text/plain` half of a
//! `multipart/alternative` email.

use crate::components::prefix_lines;
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
    links: Links<'_>,
) -> String {
    let cx = Cx {
        blocks,
        nodes,
        t: lang.strings(),
        links,
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

/// How the text names a link's address.
#[derive(Clone, Copy)]
pub enum Links<'b> {
    /// As written (a web page's text, read beside the page).
    AsWritten,
    /// As an email's HTML part links it: relative addresses made absolute against the link base,
    /// and those that cannot work in a mail left out (see [`crate::email::mail_text_url`]).
    Mail { link_base: Option<&'b str> },
}

struct Cx<'c, 'a> {
    blocks: &'c [Block],
    nodes: &'c [&'a AstNode<'a>],
    t: &'static Strings,
    links: Links<'c>,
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
                let text = self.inline(node);
                match h.level {
                    1 => format!("{text}\n{}", "=".repeat(text.chars().count().max(3))),
                    2 => format!("{text}\n{}", "-".repeat(text.chars().count().max(3))),
                    n => format!("{} {text}", "#".repeat(usize::from(n))),
                }
            }
            NodeValue::Paragraph => self.inline(node),
            NodeValue::BlockQuote => prefix_lines(&self.children(node), "> ", "> "),
            // A GitHub alert: its title word, then its text, quoted.
            NodeValue::Alert(alert) => {
                let title = alert
                    .title
                    .as_deref()
                    .unwrap_or(alert.alert_type.default_title());
                let body = self.children(node);
                prefix_lines(&format!("{title}\n\n{body}"), "> ", "> ")
            }
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
                        .map(|cell| self.inline(cell))
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
        component.plain_text(t, &mut lines);
        lines.join("\n")
    }

    /// The text of an inline container: links as `text (url)`, images as their alt text.
    fn inline(&self, node: &'a AstNode<'a>) -> String {
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
                    let text = self.inline(child);
                    let url = match self.links {
                        Links::AsWritten => Some(link.url.clone()),
                        Links::Mail { link_base } => Some(link.url.as_str())
                            .filter(|u| !u.is_empty())
                            .and_then(|u| crate::email::mail_text_url(u, link_base)),
                    };
                    match url {
                        Some(url)
                            if !url.is_empty()
                                && url != text
                                && url != format!("mailto:{text}") =>
                        {
                            out.push_str(&format!("{text} ({url})"));
                        }
                        _ => out.push_str(&text),
                    }
                }
                NodeValue::HtmlInline(_) => {}
                NodeValue::ShortCode(sc) => out.push_str(&sc.emoji),
                NodeValue::FootnoteReference(f) => out.push_str(&format!("[^{}]", f.name)),
                _ => out.push_str(&self.inline(child)),
            }
        }
        out
    }
}
