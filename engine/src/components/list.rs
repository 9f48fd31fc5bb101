//! The list state prioritize and allocate share: authored items, the reader's entries (kept,
//! added, removed), the list edits of a no-JavaScript post and where they leave focus, the
//! list's model for the script, its removed and add rows, and the frame of its export.

use super::Kind;
use super::answer::{AnswersError, FormFields, clean_text, err, strings, text};
use super::check::{Checker, Obj, Routing, Seen};
use super::shared::Shared;
use crate::diag::Code;
use crate::html::i18n::Strings;
use crate::html::{Fill, Focus, RenderCx, escape_into};
use maud::{Markup, html};
use serde_json::Value;

/// An item, as its block model (`ListModel`) writes it too.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Item {
    pub id: Shared,
    pub label: Shared,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Shared>,
}

/// Parses `items` for prioritize and allocate: non-empty, each with a non-empty unique `id` and
/// `label`, an optional `context`, plus whatever `extra` reads (allocate's `weight`).
pub fn parse_items<T>(
    o: &Obj,
    ck: &mut Checker,
    kind: Kind,
    mut extra: impl FnMut(&mut Checker, &Obj, usize) -> Option<T>,
) -> Option<Vec<(Item, T)>> {
    // Written out whole rather than formatted: the hint is rarely shown.
    let hint = if kind == Kind::Allocate {
        "add \"items\": [ { \"id\": \"product\", \"label\": \"Product\", \"weight\": 40 }, … ]"
    } else {
        "add \"items\": [ { \"id\": \"eu\", \"label\": \"EU\" }, … ]"
    };
    let values = ck.array(o, "items", true, hint)?;
    if values.is_empty() {
        let at = o.start_of("items");
        ck.error(
            Code::Empty,
            at,
            &o.path("items"),
            "`items` is an empty array".into(),
            hint.into(),
        );
        return None;
    }
    const ITEM_FIELDS: [&str; 4] = ["id", "label", "context", "weight"];
    let known = if kind == Kind::Allocate {
        &ITEM_FIELDS[..]
    } else {
        &ITEM_FIELDS[..3]
    };
    let mut items: Vec<(Item, T)> = Vec::with_capacity(values.len());
    // Borrowed from the JSON: an id is only copied into the item it names.
    let mut ids = Seen::new();
    let items_path = o.field("items");
    for (i, v) in values.iter().enumerate() {
        let Some(io) = ck.object(v, items_path.index(i), format_args!("item {}", i + 1)) else {
            continue;
        };
        ck.unknown_fields(&io, known, "an item");
        let id = ck.required_str(
            &io,
            "id",
            "give every item a short unique id, e.g. \"id\": \"eu\"",
        );
        let label = ck.required_shared(
            &io,
            "label",
            "give the item the text the reader sees, e.g. \"label\": \"EU\"",
        );
        let context = ck.optional_text(&io, "context");
        let more = extra(ck, &io, i);
        if let Some(id) = id
            && ids.contains(id)
        {
            let at = io.start_of("id");
            ck.error(
                Code::DuplicateId,
                at,
                &io.path("id"),
                format!("item id \"{id}\" is used twice"),
                "item ids key the answer and must be unique; rename one of them".into(),
            );
        }
        if let (Some(id), Some(label), Some(more)) = (id, label, more) {
            ids.insert(id);
            let id = ck.keep(id);
            items.push((Item { id, label, context }, more));
        }
    }
    (ck.errors == 0).then_some(items)
}

/// One entry of a prioritize/allocate list: an authored item (by index) or one the reader added.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Item(usize),
    Added(String),
}

/// Where focus goes after `op`, posted against the list as it was rendered (`before`), left
/// the list `after`; `added` when the post added an entry.
pub fn focus_after(
    op: Option<&str>,
    before: &[Entry],
    after: &[Entry],
    added: bool,
) -> Option<Focus> {
    let n = after.len();
    let (kind, arg) = op.map_or(("", ""), |o| o.split_once(':').unwrap_or((o, "")));
    let posted = || arg.parse::<usize>().ok().and_then(|k| before.get(k));
    let now = |e: &Entry| after.iter().position(|x| x == e);
    match kind {
        // The same arrow on the moved entry; at an end, where that arrow is disabled and
        // cannot take focus, the other one.
        "up" | "down" => {
            let k = now(posted()?)?;
            let up = k > 0;
            let down = k + 1 < n;
            Some(match (kind, up, down) {
                ("up", true, _) | ("down", true, false) => Focus::Up(k),
                (_, _, true) => Focus::Down(k),
                _ => Focus::Remove(k),
            })
        }
        "remove" => match posted()? {
            Entry::Item(i) => Some(Focus::Restore(*i)),
            Entry::Added(_) => Some(Focus::Add),
        },
        "restore" => after
            .iter()
            .position(|e| !before.contains(e) && matches!(e, Entry::Item(_)))
            .map(Focus::Remove),
        _ if added || kind == "add" => Some(Focus::Add),
        _ => None,
    }
}

pub fn item_index(block: &str, field: &str, ids: &[&str], id: &str) -> Result<usize, AnswersError> {
    ids.iter().position(|x| *x == id).ok_or_else(|| {
        err(
            block,
            field,
            format!("\"{id}\" is not an item id; the ids are {}", ids.join(", ")),
        )
    })
}

/// The `removed` ids and the `note` of a list answer, as JSON responses write them.
pub fn list_to_json(
    items: &[Item],
    removed: &[usize],
    note: Option<&str>,
    o: &mut serde_json::Map<String, Value>,
) {
    if !removed.is_empty() {
        let ids: Vec<Value> = removed
            .iter()
            .filter_map(|&i| items.get(i))
            .map(|item| item.id.as_str().into())
            .collect();
        o.insert("removed".into(), ids.into());
    }
    if let Some(note) = note {
        o.insert("note".into(), note.into());
    }
}

pub fn removed_json(
    block: &str,
    ids: &[&str],
    o: &serde_json::Map<String, Value>,
) -> Result<Vec<usize>, AnswersError> {
    let mut removed = Vec::new();
    for id in strings(block, "removed", o.get("removed"))? {
        let i = item_index(block, "removed", ids, id)?;
        if !removed.contains(&i) {
            removed.push(i);
        }
    }
    removed.sort_unstable();
    Ok(removed)
}

/// The order must hold every kept authored item exactly once and no removed one.
pub fn check_permutation(
    block: &str,
    ids: &[&str],
    order: &[Entry],
    removed: &[usize],
) -> Result<(), AnswersError> {
    let mut seen = vec![false; ids.len()];
    for e in order {
        if let Entry::Item(i) = e {
            if removed.contains(i) {
                return Err(err(
                    block,
                    "order",
                    format!("\"{}\" is both in the order and removed", ids[*i]),
                ));
            }
            if std::mem::replace(&mut seen[*i], true) {
                return Err(err(
                    block,
                    "order",
                    format!("\"{}\" appears twice", ids[*i]),
                ));
            }
        }
    }
    let missing: Vec<&str> = (0..ids.len())
        .filter(|i| !seen[*i] && !removed.contains(i))
        .map(|i| ids[i])
        .collect();
    if !missing.is_empty() {
        return Err(err(
            block,
            "order",
            format!(
                "the order must list every kept item; missing {} (list it, or put it in \"removed\")",
                missing.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The block note; a note on a block whose `note_field.enabled` is false does not fit.
pub fn note_json(
    block: &str,
    enabled: bool,
    o: &serde_json::Map<String, Value>,
) -> Result<Option<String>, AnswersError> {
    let note = text(block, "note", o.get("note"))?;
    if note.is_some() && !enabled {
        return Err(err(
            block,
            "note",
            "this block takes no note (its note_field.enabled is false)",
        ));
    }
    Ok(note)
}

/// Parses the posted list state (`i:<id>` / `a:<label>`); absent means the authored list minus
/// `removed`.
pub fn list_state(
    fields: &FormFields,
    ids: &[&str],
) -> Result<(Vec<Entry>, Vec<usize>), AnswersError> {
    let block = fields.block();
    let mut removed = Vec::new();
    for id in fields.values("removed") {
        let i = item_index(block, "removed", ids, id)?;
        if !removed.contains(&i) {
            removed.push(i);
        }
    }
    let posted = fields.values("item");
    let entries = if posted.is_empty() {
        (0..ids.len())
            .filter(|i| !removed.contains(i))
            .map(Entry::Item)
            .collect()
    } else {
        posted
            .iter()
            .map(|v| match (v.strip_prefix("i:"), v.strip_prefix("a:")) {
                (Some(id), _) => item_index(block, "item", ids, id).map(Entry::Item),
                (_, Some(label)) => clean_text(label)
                    .map(Entry::Added)
                    .ok_or_else(|| err(block, "item", "an added item has an empty label")),
                _ => Err(err(
                    block,
                    "item",
                    format!("\"{v}\" is not a list entry; reload the form"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok((entries, removed))
}

/// Applies `remove:K`, `restore:<id>` and `add` to a list; returns the entry `up`/`down` moves.
pub fn apply_list_op(
    block: &str,
    ids: &[&str],
    entries: &mut Vec<Entry>,
    removed: &mut Vec<usize>,
    op: Option<&str>,
    add: Option<String>,
) -> Result<Option<(usize, i32)>, AnswersError> {
    let index = |k: &str, len: usize| {
        k.parse::<usize>().ok().filter(|k| *k < len).ok_or_else(|| {
            err(
                block,
                "op",
                format!("\"{k}\" is not a position in the list; reload the form"),
            )
        })
    };
    let mut moved = None;
    match op.map(|o| o.split_once(':').unwrap_or((o, ""))) {
        None => {}
        Some(("up", k)) => moved = Some((index(k, entries.len())?, -1)),
        Some(("down", k)) => moved = Some((index(k, entries.len())?, 1)),
        Some(("remove", k)) => {
            let k = index(k, entries.len())?;
            if let Entry::Item(i) = entries.remove(k)
                && !removed.contains(&i)
            {
                removed.push(i);
            }
        }
        Some(("restore", id)) => {
            let i = item_index(block, "op", ids, id)?;
            if let Some(pos) = removed.iter().position(|r| *r == i) {
                removed.remove(pos);
                // Back before the first authored item that came after it: where it was, in a
                // list the reader has not reordered (as the script's Undo puts it back).
                let at = entries
                    .iter()
                    .position(|e| matches!(e, Entry::Item(j) if *j > i))
                    .unwrap_or(entries.len());
                entries.insert(at, Entry::Item(i));
            }
        }
        Some(("add", _)) => {}
        Some((other, _)) => {
            return Err(err(
                block,
                "op",
                format!("\"{other}\" is not a list action"),
            ));
        }
    }
    // A typed label is added whether the reader pressed Add or went straight to the export.
    if let Some(label) = add {
        entries.push(Entry::Added(label));
    }
    removed.sort_unstable();
    Ok(moved)
}

pub fn header(name: &str, tag: &str, from: Option<&str>, title: Option<&str>) -> String {
    match (from, title) {
        (Some(from), _) => format!("{name} ({tag}) → {from}\n\n"),
        (None, Some(title)) => format!("## {title} ({tag})\n\n"),
        (None, None) => format!("({tag})\n\n"),
    }
}

/// The "Removed by reader" line of a list export (prioritize and allocate), when any were.
pub fn removed_line(out: &mut String, items: &[Item], removed: &[usize]) {
    if removed.is_empty() {
        return;
    }
    let labels: Vec<&str> = removed.iter().map(|i| items[*i].label.as_str()).collect();
    out.push_str(&format!("\n\nRemoved by reader: {}", labels.join("; ")));
}

pub fn footer(out: &mut String, note: Option<&str>, return_prompt: Option<&str>) {
    if let Some(note) = note {
        out.push_str(&format!("\n\nNote: {}", super::reviewer::text(note)));
    }
    if let Some(prompt) = return_prompt.filter(|p| !p.trim().is_empty()) {
        out.push_str(&format!("\n\n{prompt}"));
    }
}

/// The `data-pb-model` of prioritize and allocate (see
/// [`crate::html::RenderCx::root_start_with_model`]): title, routing, the authored items, and for
/// allocate the total, unit and authored shares. Absent fields are left out. Written by hand (see
/// [`crate::html::model`]); the derive is what the tests hold the writing to.
#[derive(serde::Serialize)]
pub struct ListModel<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<&'a str>,
    pub items: &'a [Item],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<&'a str>,
    /// The authored shares, rescaled to `total` and unrounded, as the export compares them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<&'a [f64]>,
}

impl<'a> ListModel<'a> {
    pub fn new(
        title: Option<&'a str>,
        routing: Option<&'a Routing>,
        items: &'a [Item],
    ) -> ListModel<'a> {
        ListModel {
            title,
            from: routing.map(|r| r.from.as_str()),
            prompt: routing.map(|r| r.return_prompt.as_str()),
            items,
            total: None,
            unit: None,
            weights: None,
        }
    }
}

impl crate::html::model::WriteModel for ListModel<'_> {
    fn write_model(&self, json: &mut crate::html::model::ModelJson) {
        json.open('{');
        json.optional_string("title", self.title);
        json.optional_string("from", self.from);
        json.optional_string("prompt", self.prompt);
        json.key("items");
        json.open('[');
        for item in self.items {
            json.open('{');
            json.key("id");
            json.string(&item.id);
            json.key("label");
            json.string(&item.label);
            json.optional_string("context", item.context.as_deref());
            json.close('}');
        }
        json.close(']');
        if let Some(total) = self.total {
            json.key("total");
            json.number(total);
        }
        json.optional_string("unit", self.unit);
        if let Some(weights) = self.weights {
            json.numbers("weights", weights);
        }
        json.close('}');
    }
}

/// Items the reader removed, each with a Restore button (shared with allocate).
pub fn removed_list(cx: &RenderCx, items: &[Item], removed: &[usize]) -> Markup {
    // Nothing removed (most renders): no buffer is even allocated.
    if removed.is_empty() {
        return html! {};
    }
    let (removed_name, op_name) = (cx.name_parts("removed"), cx.name_parts("op"));
    let restore = Strings::fill(cx.t.restore, "");
    html! {
        div class="pb-removed" {
            p { (cx.t.removed) }
            ul {
                @for &i in removed {
                    li {
                        input type="hidden" name=(removed_name) value=(items[i].id);
                        span { (items[i].label) } " "
                        button type="submit" name=(op_name) value={ "restore:" (items[i].id) }
                            aria-label=(Fill(cx.t.restore, &items[i].label))
                            autofocus[cx.focus == Some(Focus::Restore(i))] { (restore.trim()) }
                    }
                }
            }
        }
    }
}

/// The "add an item of your own" row shared with allocate.
pub fn add_box<'a>(cx: &'a RenderCx, label: &'a str) -> impl maud::Render + 'a {
    AddBox { cx, label }
}

/// See [`add_box`]. Written straight into the block's buffer, as [`super::check::note_box`] is: the
/// markup is the engine's, the label escaped, and a test holds it to the `html!` it replaces.
struct AddBox<'a> {
    cx: &'a RenderCx<'a>,
    label: &'a str,
}

impl maud::Render for AddBox<'_> {
    fn render_to(&self, out: &mut String) {
        let (cx, add_id) = (self.cx, self.cx.id_parts("add"));
        out.push_str("<div class=\"pb-add\"><label for=\"");
        add_id.render_to(out);
        out.push_str("\">");
        escape_into(self.label, out);
        out.push_str("</label><input type=\"text\" id=\"");
        add_id.render_to(out);
        out.push_str("\" name=\"");
        cx.name_parts("add").render_to(out);
        out.push('"');
        if cx.focus == Some(Focus::Add) {
            out.push_str(" autofocus");
        }
        out.push_str("><button type=\"submit\" name=\"");
        cx.name_parts("op").render_to(out);
        out.push_str("\" value=\"add\">");
        escape_into(cx.t.add, out);
        out.push_str("</button></div>");
    }
}

#[cfg(test)]
mod tests {
    use super::{Entry, focus_after};
    use crate::html::{Focus, RenderCx, Text};
    use crate::options::Surface;
    use maud::html;

    /// The add row as it was written with `html!`, which [`super::AddBox`] must match.
    fn add_box_html(cx: &RenderCx, label: &str) -> String {
        let add_id = cx.id_parts("add");
        html! {
            div class="pb-add" {
                label for=(add_id) { (Text(label)) }
                input type="text" id=(add_id) name=(cx.name_parts("add")) autofocus[cx.focus == Some(Focus::Add)];
                button type="submit" name=(cx.name_parts("op")) value="add" { (Text(cx.t.add)) }
            }
        }
        .into_string()
    }

    #[test]
    fn add_boxes_render_as_html_did() {
        let diagrams = std::cell::RefCell::new(Vec::new());
        let thumbnails = std::cell::RefCell::new(Vec::new());
        for focus in [None, Some(Focus::Add), Some(Focus::Up(0))] {
            for label in ["Add an item of your own", "a\"b<c>&'d é", ""] {
                let cx = RenderCx {
                    block: "b3",
                    id_prefix: "pb-1a2b3c4d-b3",
                    surface: Surface::Page,
                    tag: "prioritize",
                    t: crate::html::i18n::Lang::He.strings(),
                    rtl: true,
                    focus,
                    diagram_base: None,
                    cid_images: false,
                    diagrams: &diagrams,
                    thumbnails: &thumbnails,
                    answerable: true,
                };
                assert_eq!(
                    maud::Render::render(&super::add_box(&cx, label)).into_string(),
                    add_box_html(&cx, label)
                );
            }
        }
    }

    #[test]
    fn a_list_edit_leaves_focus_on_the_control_the_reader_used() {
        // Lists of authored items by index; 9 stands for an entry the reader added.
        let l = |ix: &[usize]| -> Vec<Entry> {
            ix.iter()
                .map(|&i| match i {
                    9 => Entry::Added("X".into()),
                    i => Entry::Item(i),
                })
                .collect()
        };
        let cases = [
            (
                "up:2",
                [0, 1, 2].as_slice(),
                [0, 2, 1].as_slice(),
                Some(Focus::Up(1)),
            ),
            // At the top ▲ is disabled, at the bottom ▼: the other arrow.
            ("up:1", &[0, 1, 2], &[1, 0, 2], Some(Focus::Down(0))),
            ("down:0", &[0, 1, 2], &[1, 0, 2], Some(Focus::Down(1))),
            ("down:1", &[0, 1, 2], &[0, 2, 1], Some(Focus::Up(2))),
            // Removed: its Restore button; restored: its ✕.
            ("remove:1", &[0, 1, 2], &[0, 2], Some(Focus::Restore(1))),
            ("restore:b", &[0, 2], &[0, 1, 2], Some(Focus::Remove(1))),
            // An added entry removed, or an add: the add box.
            ("remove:1", &[0, 9], &[0], Some(Focus::Add)),
            ("add", &[0, 1], &[0, 1, 9], Some(Focus::Add)),
            // A tampered position leaves focus alone.
            ("up:9", &[0, 1, 2], &[0, 1, 2], None),
        ];
        for (op, before, after, focus) in cases {
            let got = focus_after(Some(op), &l(before), &l(after), op == "add");
            assert_eq!(got, focus, "{op}");
        }
    }
}
