//! A parser for the Mermaid flowchart grammar people actually write: enough to know every node
//! and edge of a diagram, so a reviewer's comment can be pinned to one and checked against it.

/// A flowchart's nodes (in order of first appearance) and edges (in source order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flowchart {
    pub direction: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Directives that were recognised and ignored (`click`, `style`, …).
    pub ignored: Vec<String>,
}

impl Flowchart {
    /// The label of node `id` (the id itself when unknown).
    pub fn label_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .map_or(id, |n| n.label.as_str())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    /// The label (the id when the node has no shape text).
    pub label: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub label: Option<String>,
}

/// Why a source is not a flowchart this parser can read, and where (byte offset).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    pub offset: usize,
    pub message: String,
}

/// `None` when the source is another diagram type (sequence, class, …): those take only
/// whole-diagram comments.
pub fn parse(source: &str) -> Option<Result<Flowchart, Unsupported>> {
    let mut statements = statements(source).into_iter();
    let (header_at, header) = statements.next()?;
    let mut words = header.split_whitespace();
    let keyword = words.next()?;
    if keyword != "graph" && keyword != "flowchart" {
        return None;
    }
    let mut chart = Flowchart {
        direction: words.next().unwrap_or("TD").to_string(),
        ..Flowchart::default()
    };
    let rest_of_header = header[keyword.len()..].trim_start();
    let after_dir = rest_of_header
        .split_once(char::is_whitespace)
        .map(|(_, r)| r.trim());
    let mut pending: Vec<(usize, String)> = Vec::new();
    if let Some(r) = after_dir.filter(|r| !r.is_empty()) {
        pending.push((header_at + header.find(r).unwrap_or(0), r.to_string()));
    }
    for (at, stmt) in pending
        .into_iter()
        .chain(statements.map(|(a, s)| (a, s.to_string())))
    {
        if let Err(e) = statement(&mut chart, &stmt, at) {
            return Some(Err(e));
        }
    }
    Some(Ok(chart))
}

/// Splits on newlines and `;` outside quotes and brackets; drops `%%` comments.
fn statements(source: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0i32;
    let mut quoted = false;
    let bytes = source.as_bytes();
    let mut i = 0;
    while i <= bytes.len() {
        let b = bytes.get(i).copied();
        match b {
            Some(b'"') => quoted = !quoted,
            Some(b'[' | b'(' | b'{') if !quoted => depth += 1,
            Some(b']' | b')' | b'}') if !quoted => depth = (depth - 1).max(0),
            Some(b'%') if !quoted && bytes.get(i + 1) == Some(&b'%') => {
                push(&mut out, source, start, i);
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                start = i;
                depth = 0;
                continue;
            }
            None | Some(b'\n') => {
                push(&mut out, source, start, i);
                start = i + 1;
                depth = 0;
                quoted = false;
            }
            Some(b';') if !quoted && depth == 0 => {
                push(&mut out, source, start, i);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn push<'s>(out: &mut Vec<(usize, &'s str)>, source: &'s str, start: usize, end: usize) {
    let Some(raw) = source.get(start..end) else {
        return;
    };
    let trimmed = raw.trim();
    if !trimmed.is_empty() {
        out.push((start + (raw.len() - raw.trim_start().len()), trimmed));
    }
}

const IGNORED: [&str; 7] = [
    "click",
    "style",
    "classDef",
    "class",
    "linkStyle",
    "direction",
    "accTitle",
];

fn statement(chart: &mut Flowchart, stmt: &str, at: usize) -> Result<(), Unsupported> {
    let first = stmt.split_whitespace().next().unwrap_or("");
    if IGNORED.contains(&first) || first.starts_with("accDescr") {
        chart.ignored.push(first.to_string());
        return Ok(());
    }
    if first == "subgraph" {
        // `subgraph id [title]`: the subgraph itself can be an edge endpoint; treat it as a node.
        let rest = stmt["subgraph".len()..].trim();
        if !rest.is_empty() {
            let mut p = Cursor {
                s: rest,
                pos: 0,
                base: at + stmt.len() - rest.len(),
            };
            if let Some(node) = p.node()? {
                add_node(chart, node);
            }
        }
        return Ok(());
    }
    if stmt == "end" {
        return Ok(());
    }
    let mut p = Cursor {
        s: stmt,
        pos: 0,
        base: at,
    };
    let mut previous: Vec<String> = p.group(chart)?;
    loop {
        p.skip_ws();
        if p.at_end() {
            return Ok(());
        }
        let label = p.arrow()?;
        let next = p.group(chart)?;
        for from in &previous {
            for to in &next {
                chart.edges.push(Edge {
                    from: from.clone(),
                    to: to.clone(),
                    label: label.clone(),
                });
            }
        }
        previous = next;
    }
}

fn add_node(chart: &mut Flowchart, (id, label): (String, Option<String>)) {
    match chart.nodes.iter_mut().find(|n| n.id == id) {
        Some(n) => {
            if let Some(l) = label {
                n.label = l;
            }
        }
        None => chart.nodes.push(Node {
            label: label.unwrap_or_else(|| id.clone()),
            id,
        }),
    }
}

struct Cursor<'s> {
    s: &'s str,
    pos: usize,
    base: usize,
}

impl<'s> Cursor<'s> {
    fn rest(&self) -> &'s str {
        &self.s[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    fn error(&self, message: String) -> Unsupported {
        Unsupported {
            offset: self.base + self.pos,
            message,
        }
    }

    /// `A & B & C`
    fn group(&mut self, chart: &mut Flowchart) -> Result<Vec<String>, Unsupported> {
        let mut ids = Vec::new();
        loop {
            self.skip_ws();
            let Some(node) = self.node()? else {
                return Err(self.error(format!("expected a node id at {:?}", preview(self.rest()))));
            };
            ids.push(node.0.clone());
            add_node(chart, node);
            self.skip_ws();
            if self.rest().starts_with('&') {
                self.pos += 1;
            } else {
                return Ok(ids);
            }
        }
    }

    /// An id with an optional shape and label: `A`, `A[Text]`, `B{"Quoted"}`, `C((Round))`.
    fn node(&mut self) -> Result<Option<(String, Option<String>)>, Unsupported> {
        let id_len: usize = self
            .rest()
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
            .map_or(self.rest().len(), |(i, _)| i);
        if id_len == 0 {
            return Ok(None);
        }
        let id = self.rest()[..id_len].to_string();
        self.pos += id_len;
        const SHAPES: [(&str, &str); 12] = [
            ("(((", ")))"),
            ("([", "])"),
            ("[(", ")]"),
            ("[[", "]]"),
            ("((", "))"),
            ("{{", "}}"),
            ("[/", "/]"),
            ("[\\", "\\]"),
            ("[", "]"),
            ("(", ")"),
            ("{", "}"),
            (">", "]"),
        ];
        let mut label = None;
        if let Some((open, close)) = SHAPES.iter().find(|(o, _)| self.rest().starts_with(o)) {
            self.pos += open.len();
            let text = if self.rest().starts_with('"') {
                let end = self.rest()[1..]
                    .find('"')
                    .ok_or_else(|| self.error("a quoted label is not closed".into()))?;
                let t = self.rest()[1..1 + end].to_string();
                self.pos += end + 2;
                if !self.rest().starts_with(close) {
                    return Err(self.error(format!("expected {close} after the label of {id}")));
                }
                t
            } else {
                let end = self.rest().find(close).ok_or_else(|| {
                    self.error(format!("the shape of {id} is not closed with {close}"))
                })?;
                let t = self.rest()[..end].trim().to_string();
                self.pos += end;
                t
            };
            self.pos += close.len();
            label = Some(text);
        }
        if self.rest().starts_with(":::") {
            let skip = self.rest()[3..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .map_or(self.rest().len(), |i| i + 3);
            self.pos += skip;
        }
        Ok(Some((id, label)))
    }

    /// An edge operator with its optional label: `-->`, `-->|x|`, `-- x -->`, `-. x .->`,
    /// `== x ==>`, `---`, `-.->`, `==>`, `<-->`, `--x`, `--o`, `~~~`.
    fn arrow(&mut self) -> Result<Option<String>, Unsupported> {
        let r = self.rest();
        let start_len =
            usize::from(r.starts_with(['<', 'x', 'o']) && r[1..].starts_with(['-', '=', '.']));
        let body: usize = r[start_len..]
            .chars()
            .take_while(|c| matches!(c, '-' | '=' | '.' | '~'))
            .count();
        if body < 2 && !(body == 1 && r[start_len + 1..].starts_with('>')) {
            return Err(self.error(format!("expected an arrow such as --> at {:?}", preview(r))));
        }
        let mut len = start_len + body;
        let opened = &r[start_len..len];
        // `>` always ends an arrow; `x` and `o` only when they are not the start of the next id.
        if r[len..].starts_with('>')
            || (r[len..].starts_with(['x', 'o'])
                && !r[len + 1..].starts_with(|c: char| c.is_alphanumeric()))
        {
            len += 1;
        }
        let mut label = None;
        let closed = r[..len].ends_with(['>', 'x', 'o']) || opened.len() >= 3 || opened == "~~~";
        self.pos += len;
        if !closed && r[len..].starts_with(' ') {
            // `-- text -->`: the label runs to the closing operator.
            let rest = self.rest();
            let close = ["-->", "---", "==>", "===", ".->", "-.-", "--x", "--o"]
                .iter()
                .filter_map(|c| rest.find(c).map(|i| (i, c.len())))
                .min_by_key(|(i, _)| *i)
                .ok_or_else(|| {
                    self.error("an edge label after -- must end with an arrow such as -->".into())
                })?;
            label = Some(rest[..close.0].trim().to_string());
            self.pos += close.0 + close.1;
            let r2 = self.rest();
            self.pos += r2
                .chars()
                .take_while(|c| matches!(c, '-' | '=' | '.' | '>'))
                .count();
        }
        self.skip_ws();
        if self.rest().starts_with('|') {
            let end = self.rest()[1..]
                .find('|')
                .ok_or_else(|| self.error("an edge label |…| is not closed".into()))?;
            let raw = self.rest()[1..1 + end].trim();
            let unquoted = raw
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(raw);
            label = Some(unquoted.to_string());
            self.pos += end + 2;
        }
        Ok(label.filter(|l| !l.is_empty()))
    }
}

fn preview(s: &str) -> String {
    s.chars().take(20).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(src: &str) -> Flowchart {
        parse(src).expect("a flowchart").expect("supported")
    }

    fn edges(c: &Flowchart) -> Vec<String> {
        c.edges
            .iter()
            .map(|e| {
                format!(
                    "{}→{}{}",
                    e.from,
                    e.to,
                    e.label
                        .as_ref()
                        .map(|l| format!(" ({l})"))
                        .unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn the_spec_examples() {
        let c = chart("graph TD; A[Paste] --> B[Review] --> C[Copy back];");
        assert_eq!(
            c.nodes.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(),
            ["Paste", "Review", "Copy back"]
        );
        assert_eq!(edges(&c), ["A→B", "B→C"]);
        let c = chart(
            "graph TD; R[Read request] --> C{In edge cache?}; C -->|hit| S[Serve cached]; C -->|miss| O{Origin healthy?}; O -->|healthy| F[Fetch, cache, serve]; O -->|slow| B[Serve stale + refresh in background]; O -->|no cached copy| W[Block on origin];",
        );
        assert_eq!(c.nodes.len(), 7);
        assert_eq!(edges(&c)[1], "C→S (hit)");
        let c = chart("graph LR; A-->B; B-.->C; C==>D; D---E; E --o F; F --x G");
        assert_eq!(edges(&c), ["A→B", "B→C", "C→D", "D→E", "E→F", "F→G"]);
    }

    #[test]
    fn arrows_labels_groups_and_subgraphs() {
        let c = chart(
            "flowchart LR\n  A -- yes --> B\n  B -.-> C & D\n  C == go ==> E\n  E --- F\n  F -. maybe .-> G\n  subgraph S1 [Group]\n  G --> H((Round))\n  end\n  click A callback\n  %% a comment\n  H --x I\n  I <--> J\n",
        );
        assert_eq!(
            edges(&c),
            [
                "A→B (yes)",
                "B→C",
                "B→D",
                "C→E (go)",
                "E→F",
                "F→G (maybe)",
                "G→H",
                "H→I",
                "I→J"
            ]
        );
        assert!(c.nodes.iter().any(|n| n.id == "H" && n.label == "Round"));
        assert_eq!(c.ignored, ["click"]);
    }

    #[test]
    fn other_diagrams_and_errors() {
        assert!(parse("sequenceDiagram\nA->>B: hi").is_none());
        assert!(parse("graph TD; A[unclosed --> B").unwrap().is_err());
        assert!(parse("graph TD; A --> ").unwrap().is_err());
    }
}
