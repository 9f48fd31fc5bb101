//! `prioritize`: rank a short list; the reader may also remove items and add their own (spec §4).

use super::answer::{
    AnswersError, FormFields, Part, err, join, object, only_keys, text, type_name,
};
use super::check::{Checker, NoteField, Obj, Routing};
use super::reviewer;
use super::shared::Shared;
use super::list::{
    Entry, Item, ListModel, add_box, apply_list_op, check_permutation, focus_after, footer, header,
    item_index, list_state, list_to_json, note_json, parse_items, removed_json, removed_line, removed_list,
};
use super::{Component, Kind};
use crate::html::i18n::{Lang, Strings};
use crate::html::{Digits, Fill, Focus, Num, Parts, RenderCx, Text, email};
use crate::json::Json;
use maud::{Markup, html};
use serde_json::Value as JsonValue;

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
    pub title: Option<Shared>,
    pub instruction: Option<Shared>,
    /// The authored, suggested order.
    pub items: Vec<Item>,
    pub note: NoteField,
    pub routing: Option<Routing>,
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<Prioritize> {
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

impl Component for Prioritize {
    const TAG: &'static str = "prioritize";
    const MISNAMED: &'static [&'static str] = &[
        "rank",
        "ranking",
        "order",
        "priority",
        "priorities",
        "prioritise",
        "sort",
        "reorder",
        "prioritization",
        "prioritisation",
        "prioritized",
    ];
    const BARE_RANK: u8 = 2;
    type Answer = RankAnswer;

    fn parse(o: &Obj, ck: &mut Checker) -> Option<Self> {
        parse(o, ck)
    }

    /// Any `items` list (allocate, asked first, claims lists whose items all have weights).
    fn bare_shape(value: &Json) -> bool {
        value.get("items").is_some()
    }

    fn render(&self, cx: &RenderCx, answer: Option<&RankAnswer>) -> Markup {
        render(self, cx, answer)
    }

    fn answer_from_json(&self, block: &str, value: &JsonValue) -> Result<RankAnswer, AnswersError> {
        rank_json(block, self, value)
    }

    fn answer_from_form(&self, fields: &mut FormFields) -> Result<RankAnswer, AnswersError> {
        rank_form(self, fields)
    }

    fn answer_to_json(&self, answer: &RankAnswer) -> JsonValue {
        let mut o = serde_json::Map::new();
        if let Some(order) = &answer.order {
            let entries: Vec<JsonValue> = order
                .iter()
                .filter_map(|e| match e {
                    Entry::Item(i) => self.items.get(*i).map(|item| item.id.as_str().into()),
                    Entry::Added(label) => Some(serde_json::json!({ "added": label })),
                })
                .collect();
            o.insert("order".into(), entries.into());
        }
        list_to_json(&self.items, &answer.removed, answer.note.as_deref(), &mut o);
        JsonValue::Object(o)
    }

    fn export(&self, answer: Option<&RankAnswer>, _lang: Lang) -> Part {
        export_rank(self, answer.unwrap_or(&RankAnswer::default())).into()
    }

    fn plain_text(&self, _t: &Strings, lines: &mut Vec<String>) {
        if let Some(title) = &self.title {
            lines.push(title.to_uppercase());
        }
        if let Some(i) = &self.instruction {
            lines.push(i.to_string());
        }
        for (n, item) in self.items.iter().enumerate() {
            let context = item
                .context
                .as_ref()
                .map(|c| format!(" — {c}"))
                .unwrap_or_default();
            lines.push(format!("{}. {}{context}", n + 1, item.label));
        }
        if let Some(r) = &self.routing {
            lines.push(r.return_prompt.to_string());
        }
    }

    fn visible_text(&self, push: &mut dyn FnMut(&str)) {
        self.items.iter().for_each(|i| push(&i.label));
    }

    fn page_title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

fn render(p: &Prioritize, cx: &RenderCx, answer: Option<&RankAnswer>) -> Markup {
    let t = cx.t;
    let title_id = p.title.as_ref().map(|_| cx.id_parts("title"));
    if cx.surface.is_email() {
        return html! {
            (cx.root_start(title_id))
            @if let Some(title) = &p.title { h2 style=(email::TITLE) { span id=[title_id] { (Text(title)) } } }
            @if let Some(i) = &p.instruction { p style=(email::MUTED) { (Text(i)) } }
            @if let Some(r) = &p.routing { (r.render_email()) }
            // Mail clients ignore logical properties: the indent is on the reading side.
            ol style=(if cx.rtl { "margin:0 0 8px;padding:0 24px 0 0;" } else { "margin:0 0 8px;padding:0 0 0 24px;" }) {
                @for item in &p.items {
                    li style=(email::ITEM) {
                        (item.label)
                        @if let Some(c) = &item.context { span style=(email::MUTED_INLINE) { " — " (c) } }
                    }
                }
            }
            (cx.root_end())
        };
    }
    let unanswered = RankAnswer::default();
    let rank = answer.unwrap_or(&unanswered);
    let order = rank_order(p, rank);
    let n = order.len();
    let (item_name, op_name) = (cx.name_parts("item"), cx.name_parts("op"));
    let model = ListModel::new(p.title.as_deref(), p.routing.as_ref(), &p.items);
    html! {
        (cx.root_start_with_model(title_id, &model))
        @if let Some(title) = &p.title { h2 class="pb-title" { span id=[title_id] { (Text(title)) } } }
        @if let Some(i) = &p.instruction { p class="pb-instruction" { (Text(i)) } }
        p class="pb-hint pb-unchanged" { (Text(t.list_unchanged)) }
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
                    data-pb-item=[if let Entry::Item(i) = entry { Some(Text(&p.items[*i].id)) } else { None }] {
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
            (super::check::note_box(cx, cx.id_parts("note"), &cx.name_parts("note"), p.note.label.as_deref().unwrap_or(t.note), rank.note.as_deref().unwrap_or("")))
        }
        (cx.root_end())
    }
}

// ---------------------------------------------------------------------------------------------
// Answers and export

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankAnswer {
    /// The final list, top first. `None` means the kept items in authored order.
    pub order: Option<Vec<Entry>>,
    /// Authored items the reader removed (indexes, in authored order).
    pub removed: Vec<usize>,
    pub note: Option<String>,
}

fn rank_json(block: &str, p: &Prioritize, v: &JsonValue) -> Result<RankAnswer, AnswersError> {
    let o = object(block, "", v)?;
    only_keys(block, "", o, &["order", "removed", "note"])?;
    let ids: Vec<&str> = p.items.iter().map(|i| i.id.as_str()).collect();
    let removed = removed_json(block, &ids, o)?;
    let order = match o.get("order") {
        None | Some(JsonValue::Null) => None,
        Some(JsonValue::Array(entries)) => {
            let mut order = Vec::new();
            for (k, e) in entries.iter().enumerate() {
                let field = format!("order[{k}]");
                match e {
                    JsonValue::String(id) => {
                        order.push(Entry::Item(item_index(block, &field, &ids, id)?))
                    }
                    JsonValue::Object(a) => {
                        only_keys(block, &field, a, &["added"])?;
                        let label = text(block, &join(&field, "added"), a.get("added"))?
                            .ok_or_else(|| {
                                err(
                                    block,
                                    &field,
                                    "an added item needs a non-empty \"added\" label",
                                )
                            })?;
                        order.push(Entry::Added(label));
                    }
                    other => {
                        return Err(err(
                            block,
                            &field,
                            format!(
                                "must be an item id or {{ \"added\": \"…\" }}, not {}",
                                type_name(other)
                            ),
                        ));
                    }
                }
            }
            check_permutation(block, &ids, &order, &removed)?;
            Some(order)
        }
        Some(other) => {
            return Err(err(
                block,
                "order",
                format!("must be an array, not {}", type_name(other)),
            ));
        }
    };
    // As allocate: a ranking of nothing is no answer.
    let kept_any = order
        .as_ref()
        .map_or(removed.len() < ids.len(), |o| !o.is_empty());
    if !kept_any {
        return Err(err(
            block,
            "removed",
            "every item was removed; keep or add at least one",
        ));
    }
    Ok(RankAnswer {
        order,
        removed,
        note: note_json(block, p.note.enabled, o)?,
    })
}

/// The order a prioritize form's position selects ask for, as indices into the rendered list
/// (`requested[k]` is the 1-based position chosen for entry `k`). A reader without JavaScript
/// changes one select, or a few, and leaves the rest as rendered: the changed selects say where
/// their entries go, and the others keep their order around them. (Sorting by the numbers
/// would leave a moved entry beside the one it was meant to displace, or where it was.)
/// Entries sent to the same place keep the rendered order.
fn order_by_positions(requested: &[usize]) -> Vec<usize> {
    let n = requested.len();
    let moved = |k: usize| requested[k] != k + 1;
    let mut movers: Vec<usize> = (0..n).filter(|&k| moved(k)).collect();
    movers.sort_by_key(|&k| (requested[k], k));
    let mut slots: Vec<Option<usize>> = vec![None; n];
    for k in movers {
        let want = requested[k].clamp(1, n) - 1;
        // The wanted place, or the nearest free one after it, or before it.
        if let Some(slot) = (want..n)
            .chain((0..want).rev())
            .find(|&s| slots[s].is_none())
        {
            slots[slot] = Some(k);
        }
    }
    let mut kept = (0..n).filter(|&k| !moved(k));
    slots
        .into_iter()
        .filter_map(|slot| slot.or_else(|| kept.next()))
        .collect()
}

fn rank_form(p: &Prioritize, fields: &mut FormFields) -> Result<RankAnswer, AnswersError> {
    let block = fields.block();
    let op = fields.op();
    let ids: Vec<&str> = p.items.iter().map(|i| i.id.as_str()).collect();
    let (mut entries, mut removed) = list_state(fields, &ids)?;
    // Position selects (see `order_by_positions`).
    let n = entries.len();
    let mut keyed: Vec<(usize, usize, Entry)> = Vec::with_capacity(n);
    for (k, e) in entries.drain(..).enumerate() {
        let field = format!("pos.{k}");
        let pos = match fields.one(&field) {
            None => k + 1,
            Some(v) => v
                .parse::<usize>()
                .ok()
                .filter(|p| (1..=n).contains(p))
                .ok_or_else(|| {
                    err(
                        block,
                        &field,
                        format!("\"{v}\" is not a position in this list of {n}; reload the form"),
                    )
                })?,
        };
        keyed.push((pos, k, e));
    }
    // Resolve a move against the list as rendered, before the selects reorder it.
    let add = fields.text("add");
    let adding = add.is_some();
    let before: Vec<Entry> = keyed.iter().map(|(_, _, e)| e.clone()).collect();
    let mut as_rendered = before.clone();
    let moved = apply_list_op(block, &ids, &mut as_rendered, &mut removed, op, add)?;
    let moved_entry = moved.map(|(k, d)| (keyed[k].2.clone(), d));
    let requested: Vec<usize> = keyed.iter().map(|(pos, _, _)| *pos).collect();
    let mut order: Vec<Entry> = order_by_positions(&requested)
        .into_iter()
        .map(|k| keyed[k].2.clone())
        .filter(|e| as_rendered.contains(e))
        .collect();
    // Restored and newly added entries take their place in the edited list: a restored item
    // where it was authored (see `apply_list_op`), an added one at the end.
    for (k, e) in as_rendered.into_iter().enumerate() {
        if !order.contains(&e) {
            order.insert(k.min(order.len()), e);
        }
    }
    if let Some((entry, d)) = moved_entry
        && let Some(at) = order.iter().position(|e| *e == entry)
    {
        let to = (at as i64 + i64::from(d)).clamp(0, order.len() as i64 - 1) as usize;
        let e = order.remove(at);
        order.insert(to, e);
    }
    if order.is_empty() {
        fields.notice("every item was removed; restore or add one");
    }
    fields.set_focus(focus_after(op, &before, &order, adding));
    // The page has no note box when the note field is off: a posted note is not the reader's.
    let note = fields.text("note").filter(|_| p.note.enabled);
    check_permutation(block, &ids, &order, &removed)?;
    Ok(RankAnswer {
        order: Some(order),
        removed,
        note,
    })
}

/// The final prioritize list for an answer (authored order minus removed when no order given).
fn rank_order(p: &Prioritize, a: &RankAnswer) -> Vec<Entry> {
    a.order.clone().unwrap_or_else(|| {
        (0..p.items.len())
            .filter(|i| !a.removed.contains(i))
            .map(Entry::Item)
            .collect()
    })
}

/// Spec §4.3.
fn export_rank(p: &Prioritize, a: &RankAnswer) -> String {
    let order = rank_order(p, a);
    let edited = !a.removed.is_empty() || order.iter().any(|e| matches!(e, Entry::Added(_)));
    let kept: Vec<usize> = order
        .iter()
        .filter_map(|e| {
            if let Entry::Item(i) = e {
                Some(*i)
            } else {
                None
            }
        })
        .collect();
    let reordered = kept.windows(2).any(|w| w[0] > w[1]);
    let tag = if edited {
        "reader edited the list"
    } else if reordered {
        "reader reordered"
    } else {
        "reader kept the order unchanged"
    };
    let mut out = header(
        "Priority order",
        tag,
        p.routing.as_ref().map(|r| r.from.as_str()),
        p.title.as_deref(),
    );
    let lines: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(n, e)| match e {
            Entry::Item(i) => {
                let item = &p.items[*i];
                match &item.context {
                    Some(c) => format!("{}. {} — {c}", n + 1, item.label),
                    None => format!("{}. {}", n + 1, item.label),
                }
            }
            Entry::Added(label) => {
                format!("{}. {} — (added by reader)", n + 1, reviewer::text(label))
            }
        })
        .collect();
    out.push_str(&lines.join("\n"));
    if lines.is_empty() {
        // Every item removed (a form can post that): no empty list between header and the rest.
        out.truncate(out.trim_end().len());
    }
    removed_line(&mut out, &p.items, &a.removed);
    footer(
        &mut out,
        a.note.as_deref(),
        p.routing.as_ref().map(|r| r.return_prompt.as_str()),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::order_by_positions;
    use crate::options::Options;
    use crate::render;

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

    #[test]
    fn position_selects_move_the_entries_the_reader_changed() {
        // Nothing changed.
        assert_eq!(order_by_positions(&[1, 2, 3, 4]), [0, 1, 2, 3]);
        // The third entry to the top: the others shift down.
        assert_eq!(order_by_positions(&[1, 2, 1, 4]), [2, 0, 1, 3]);
        // The last entry to second place.
        assert_eq!(order_by_positions(&[1, 2, 3, 2]), [0, 3, 1, 2]);
        // The first entry to the bottom.
        assert_eq!(order_by_positions(&[4, 2, 3, 4]), [1, 2, 3, 0]);
        // A swap made with two selects.
        assert_eq!(order_by_positions(&[3, 2, 1, 4]), [2, 1, 0, 3]);
        // Two entries sent to the same place: rendered order, the second just after.
        assert_eq!(order_by_positions(&[1, 1, 1, 4]), [1, 2, 0, 3]);
        // Every select changed, a full permutation: exactly that order.
        assert_eq!(order_by_positions(&[2, 3, 4, 1]), [3, 0, 1, 2]);
    }
}
