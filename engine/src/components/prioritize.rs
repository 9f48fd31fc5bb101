//! `prioritize`: rank a short list; the reader may also remove items and add their own (spec §4).

use super::{Checker, Kind, NoteField, Obj, Routing, Seen};
use crate::answers::{self, BlockAnswer, Entry, Focus, RankAnswer};
use crate::html::email;
use crate::html::i18n::Strings;
use crate::html::{Digits, Fill, Num, Parts, RenderCx, Text, escape_into};
use maud::{Markup, html};

const FIELDS: [&str; 7] = [
    "version",
    "items",
    "title",
    "instruction",
    "note_field",
    "routing",
    "skill_version",
];

/// Longest list whose position fields are `<select>`s. Each select lists every position, so
/// the markup grows with the square of the list; longer lists get number fields instead.
pub const MAX_SELECT_POSITIONS: usize = 50;

#[derive(Debug, Clone)]
pub struct Prioritize {
    pub title: Option<String>,
    pub instruction: Option<String>,
    /// The authored, suggested order.
    pub items: Vec<Item>,
    pub note: NoteField,
    pub routing: Option<Routing>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub id: String,
    pub label: String,
    pub context: Option<String>,
}

pub fn parse(o: &Obj, ck: &mut Checker) -> Option<Prioritize> {
    ck.unknown_fields(o, &FIELDS, "a prioritize block");
    ck.version(o);
    let title = ck.optional_text(o, "title");
    let instruction = ck.optional_string(o, "instruction");
    ck.optional_str(o, "skill_version");
    let note = ck.note_field(o);
    let routing = ck.routing(o);
    let items = parse_items(o, ck, Kind::Prioritize, |_, _, _| Some(()))?;
    let items = items.into_iter().map(|(item, ())| item).collect();
    (ck.errors == 0).then_some(Prioritize {
        title,
        instruction,
        items,
        note,
        routing,
    })
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
            "empty",
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
        let label = ck.required_string(
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
                "duplicate_id",
                at,
                &io.path("id"),
                format!("item id \"{id}\" is used twice"),
                "item ids key the answer and must be unique; rename one of them".into(),
            );
        }
        if let (Some(id), Some(label), Some(more)) = (id, label, more) {
            ids.insert(id);
            let id = id.to_owned();
            items.push((Item { id, label, context }, more));
        }
    }
    (ck.errors == 0).then_some(items)
}

pub fn render(p: &Prioritize, cx: &RenderCx) -> Markup {
    let t = cx.t;
    let title_id = p.title.as_ref().map(|_| cx.id_parts("title"));
    if cx.surface.is_email() {
        return html! {
            (cx.root_start(title_id))
            @if let Some(title) = &p.title { h2 id=[title_id] style=(email::TITLE) { (Text(title)) } }
            @if let Some(i) = &p.instruction { p style=(email::MUTED) { (Text(i)) } }
            @if let Some(r) = &p.routing { (r.render_email()) }
            // Mail clients ignore logical properties: the indent is on the reading side.
            ol style=(if cx.rtl { "margin:0 0 8px;padding:0 24px 0 0;" } else { "margin:0 0 8px;padding:0 0 0 24px;" }) {
                @for item in &p.items {
                    li style=(email::ITEM) {
                        (item.label)
                        @if let Some(c) = &item.context { span style=(email::MUTED) { " — " (c) } }
                    }
                }
            }
            (cx.root_end())
        };
    }
    let unanswered = RankAnswer::default();
    let rank = match cx.answer {
        Some(BlockAnswer::Rank(a)) => a,
        _ => &unanswered,
    };
    let order = answers::rank_order(p, rank);
    let n = order.len();
    let (item_name, op_name) = (cx.name_parts("item"), cx.name_parts("op"));
    let model = super::ListModel::new(p.title.as_deref(), p.routing.as_ref(), &p.items);
    html! {
        (cx.root_start_with_model(title_id, &model))
        @if let Some(title) = &p.title { h2 class="pb-title" id=[title_id] { (Text(title)) } }
        @if let Some(i) = &p.instruction { p class="pb-instruction" { (Text(i)) } }
        @if let Some(r) = &p.routing { (r.render()) }
        ol class="pb-rank" {
            @for (k, entry) in order.iter().enumerate() {
                @let (state, label, context) = match entry {
                    Entry::Item(i) => (Parts(["i:", p.items[*i].id.as_str()]), p.items[*i].label.as_str(), p.items[*i].context.as_deref()),
                    Entry::Added(l) => (Parts(["a:", l.as_str()]), l.as_str(), None),
                };
                @let k_str = Digits::new(k);
                @let pos_id = cx.numbered_id("-pos", &k_str, "");
                @let pos_name = cx.numbered_name(".pos.", &k_str, "");
                li class={ "pb-rank-item" @if matches!(entry, Entry::Added(_)) { " pb-added" } }
                    data-pb-item=[if let Entry::Item(i) = entry { Some(&p.items[*i].id) } else { None }] {
                    input type="hidden" name=(item_name) value=(state);
                    span class="pb-rank-label" { (Text(label)) }
                    @if let Some(c) = context { " " span class="pb-context" { (Text(c)) } }
                    @if matches!(entry, Entry::Added(_)) { " " span class="pb-context" { "(" (Text(t.added_by_you)) ")" } }
                    span class="pb-rank-controls" {
                        @if n <= MAX_SELECT_POSITIONS {
                            // aria-label rather than a hidden <label>: the name is for assistive
                            // technology only, and stays out of a docs site's search index.
                            select id=(pos_id) name=(pos_name) aria-label=(Fill(t.position_of, label)) {
                                @for pos in 1..=n {
                                    option value=(Num(pos)) selected[pos == k + 1] { (Num(pos)) }
                                }
                            }
                        } @else {
                            input type="number" id=(pos_id) name=(pos_name) aria-label=(Fill(t.position_of, label))
                                min="1" max=(Num(n)) step="1" value=(Num(k + 1));
                        }
                        button type="submit" class="pb-move" name=(op_name) value={ "up:" (Num(k)) }
                            aria-label=(Fill(t.move_up, label)) disabled[k == 0]
                            autofocus[cx.focus == Some(Focus::Up(k))] { "▲" }
                        button type="submit" class="pb-move" name=(op_name) value={ "down:" (Num(k)) }
                            aria-label=(Fill(t.move_down, label)) disabled[k + 1 == n]
                            autofocus[cx.focus == Some(Focus::Down(k))] { "▼" }
                        button type="submit" class="pb-remove" name=(op_name) value={ "remove:" (Num(k)) }
                            aria-label=(Fill(t.remove, label)) autofocus[cx.focus == Some(Focus::Remove(k))] { "✕" }
                    }
                }
            }
        }
        (removed_list(cx, &p.items, &rank.removed))
        (add_box(cx, t.add_item))
        @if p.note.enabled {
            (super::note_box(cx, cx.id_parts("note"), &cx.name_parts("note"), p.note.label.as_deref().unwrap_or(t.note), rank.note.as_deref().unwrap_or("")))
        }
        (cx.root_end())
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

/// See [`add_box`]. Written straight into the block's buffer, as [`super::note_box`] is: the
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
    use crate::answers::Focus;
    use crate::html::{RenderCx, Text};
    use crate::{Options, Surface, render};
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
        for focus in [None, Some(Focus::Add), Some(Focus::Up(0))] {
            for label in ["Add an item of your own", "a\"b<c>&'d é", ""] {
                let cx = RenderCx {
                    block: "b3",
                    id_prefix: "pb-1a2b3c4d-b3",
                    surface: Surface::Page,
                    kind: crate::Kind::Prioritize,
                    t: crate::html::i18n::Lang::He.strings(),
                    rtl: true,
                    answer: None,
                    focus,
                    diagram_base: None,
                    diagrams: &diagrams,
                };
                assert_eq!(
                    maud::Render::render(&super::add_box(&cx, label)).into_string(),
                    add_box_html(&cx, label)
                );
            }
        }
    }

    fn list(n: usize) -> String {
        let items: Vec<String> = (0..n)
            .map(|i| format!("{{\"id\":\"i{i}\",\"label\":\"Item {i}\"}}"))
            .collect();
        format!(
            "```prioritize\n{{\"version\":\"1\",\"items\":[{}]}}\n```\n",
            items.join(",")
        )
    }

    #[test]
    fn long_lists_use_number_fields_so_markup_stays_linear() {
        let short = render(&list(3), &Options::default()).html;
        assert_eq!(short.matches("<select").count(), 3);
        let long = render(&list(super::MAX_SELECT_POSITIONS + 1), &Options::default()).html;
        assert_eq!(long.matches("<select").count(), 0);
        assert_eq!(
            long.matches("type=\"number\"").count(),
            super::MAX_SELECT_POSITIONS + 1
        );
        assert!(long.contains("max=\"51\""));
    }
}
