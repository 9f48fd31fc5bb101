//! `allocate`: split a fixed whole across categories by weight (spec §4.5).

use super::answer::{
    AnswersError, FormFields, Part, err, join, object, only_keys, text, type_name,
};
use super::check::{Checker, NoteField, Obj, Routing};
use super::reviewer;
use super::shared::Shared;
use super::list::{
    Entry, Item, ListModel, add_box, apply_list_op, focus_after, footer, header, item_index,
    list_state, list_to_json, note_json, parse_items, removed_json, removed_line, removed_list,
};
use super::{Component, Kind};
use crate::diag::Code;
use crate::html::i18n::{Lang, Strings};
use crate::html::{Digits, Fill, Focus, Num, Parts, RenderCx, Text, email};
use crate::json::Json;
use maud::{Markup, Render, html};
use serde_json::Value as JsonValue;
use std::collections::BTreeMap;

const FIELDS: [&str; 9] = [
    "version",
    "items",
    "total",
    "unit",
    "title",
    "instruction",
    "note_field",
    "routing",
    "skill_version",
];

#[derive(Debug, Clone)]
pub struct Allocate {
    pub title: Option<Shared>,
    pub instruction: Option<Shared>,
    pub items: Vec<Item>,
    /// The authored weights, rescaled so they sum to `total` (not rounded).
    pub weights: Vec<f64>,
    pub total: f64,
    pub unit: Shared,
    pub note: NoteField,
    pub routing: Option<Routing>,
}

fn parse(o: &Obj, ck: &mut Checker) -> Option<Allocate> {
    ck.unknown_fields(o, &FIELDS, "an allocate block");
    ck.version(o);
    let title = ck.optional_text(o, "title");
    let instruction = ck.optional_string(o, "instruction");
    ck.optional_str(o, "skill_version");
    let unit = ck
        .optional_string(o, "unit")
        .unwrap_or_else(|| Shared::from("%"));
    let note = ck.note_field(o);
    let routing = ck.routing(o);
    let total = match ck.optional_number(o, "total") {
        Some(t) if t > 0.0 && t <= MAX_AMOUNT => t,
        Some(t) if t > MAX_AMOUNT => {
            let at = o.start_of("total");
            ck.error(
                Code::OutOfRange,
                at,
                &o.path("total"),
                format!("`total` must be at most 10^15, found {}", quoted_amount(t)),
                "split a whole people can read, e.g. \"total\": 100 or \"total\": 250000".into(),
            );
            100.0
        }
        Some(t) => {
            let at = o.start_of("total");
            ck.error(
                Code::OutOfRange,
                at,
                &o.path("total"),
                format!("`total` must be greater than 0, found {t}"),
                "set the whole the weights split, e.g. \"total\": 100, or omit it for 100".into(),
            );
            100.0
        }
        None => 100.0,
    };
    let items = parse_items(o, ck, Kind::Allocate, |ck, io, _| {
        let Some(v) = io.get("weight") else {
            ck.missing(
                io,
                "weight",
                "give the category its suggested share, e.g. \"weight\": 25",
            );
            return None;
        };
        let w = ck.number(v, io.field("weight"))?;
        if !(0.0..=MAX_AMOUNT).contains(&w) {
            ck.error(
                Code::OutOfRange,
                v.start,
                &io.path("weight"),
                format!(
                    "`weight` must be 0 or more and at most 10^15, found {}",
                    quoted_amount(w)
                ),
                "use a share of the total, 0 or more".into(),
            );
            return None;
        }
        Some(w)
    })?;
    let (items, raw): (Vec<Item>, Vec<f64>) = items.into_iter().unzip();
    if raw.iter().all(|w| *w == 0.0) {
        let at = o.start_of("items");
        ck.warn(
            Code::AllZeroWeights,
            at,
            &o.path("items"),
            "every weight is 0, so the split starts even".into(),
            "give the categories the split you suggest".into(),
        );
    }
    let mut weights = raw;
    rescale(&mut weights, total);
    (ck.errors == 0).then_some(Allocate {
        title,
        instruction,
        items,
        weights,
        total,
        unit,
        note,
        routing,
    })
}

impl Component for Allocate {
    const TAG: &'static str = "allocate";
    const MISNAMED: &'static [&'static str] = &[
        "allocation",
        "alloc",
        "budget",
        "split",
        "weights",
        "distribute",
    ];
    const BARE_RANK: u8 = 1;
    type Answer = SplitAnswer;

    fn parse(o: &Obj, ck: &mut Checker) -> Option<Self> {
        parse(o, ck)
    }

    /// A non-empty `items` list whose every item has a numeric `weight`.
    fn bare_shape(value: &Json) -> bool {
        value
            .get("items")
            .and_then(Json::as_array)
            .is_some_and(|a| {
                !a.is_empty()
                    && a.iter().all(|i| {
                        matches!(
                            i.get("weight").map(|w| &w.value),
                            Some(crate::json::Value::Number(_))
                        )
                    })
            })
    }

    fn render(&self, cx: &RenderCx, answer: Option<&SplitAnswer>) -> Markup {
        render(self, cx, answer)
    }

    fn answer_from_json(
        &self,
        block: &str,
        value: &JsonValue,
    ) -> Result<SplitAnswer, AnswersError> {
        split_json(block, self, value)
    }

    fn answer_from_form(&self, fields: &mut FormFields) -> Result<SplitAnswer, AnswersError> {
        split_form(self, fields)
    }

    fn answer_to_json(&self, answer: &SplitAnswer) -> JsonValue {
        let mut o = serde_json::Map::new();
        let weights: serde_json::Map<String, JsonValue> = answer
            .weights
            .iter()
            .filter_map(|(&i, &w)| Some((self.items.get(i)?.id.to_string(), amount_json(w))))
            .collect();
        if !weights.is_empty() {
            o.insert("weights".into(), weights.into());
        }
        if !answer.added.is_empty() {
            let added: Vec<JsonValue> = answer
                .added
                .iter()
                .map(|(label, w)| serde_json::json!({ "label": label, "weight": amount_json(*w) }))
                .collect();
            o.insert("added".into(), added.into());
        }
        list_to_json(&self.items, &answer.removed, answer.note.as_deref(), &mut o);
        JsonValue::Object(o)
    }

    fn export(&self, answer: Option<&SplitAnswer>, _lang: Lang) -> Part {
        let (text, notice) = export_split(self, answer.unwrap_or(&SplitAnswer::default()));
        Part { text, notice }
    }

    fn plain_text(&self, t: &Strings, lines: &mut Vec<String>) {
        if let Some(title) = &self.title {
            lines.push(title.to_uppercase());
        }
        if let Some(i) = &self.instruction {
            lines.push(i.to_string());
        }
        let shown = round_to_total(&self.weights, self.total);
        for (item, w) in self.items.iter().zip(&shown) {
            let filled = if self.total > 0.0 {
                ((w / self.total) * 20.0).round() as usize
            } else {
                0
            };
            let bar = format!(
                "{}{}",
                "#".repeat(filled.min(20)),
                ".".repeat(20 - filled.min(20))
            );
            // The label first: a line takes its direction from its first letter, and the
            // label is in the document's language.
            lines.push(format!(
                "{}: {}{} {bar}",
                item.label,
                format_number(*w),
                self.unit
            ));
            if let Some(c) = &item.context {
                lines.push(format!("   {c}"));
            }
        }
        lines.push(format!(
            "{}: {}{}",
            t.total,
            format_number(self.total),
            self.unit
        ));
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

/// The largest `total` or weight, in a document or an answer: 10^15. Sums of these stay exact
/// to the hundredth in `f64` and far from overflow, and the largest-remainder rounding counts
/// hundredths of the total in an `i64`. Beyond it a sum could overflow to infinity and the
/// rounding to a count of steps in the quintillions.
pub const MAX_AMOUNT: f64 = 1e15;

/// A number for a message: as `1e308` when it is huge, so the message stays one line.
pub fn quoted_amount(n: f64) -> String {
    if n.abs() >= MAX_AMOUNT {
        format!("{n:e}")
    } else {
        format!("{n}")
    }
}

/// Scales `weights`, in place, so they sum to `total`; all zero becomes an even split.
pub fn rescale(weights: &mut [f64], total: f64) {
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 {
        weights.fill(total / weights.len() as f64);
        return;
    }
    for w in weights {
        *w = *w * total / sum;
    }
}

/// Rounds weights that sum to `total` for display, keeping the sum exact: whole numbers when
/// `total` is an integer, hundredths otherwise, by the largest-remainder method (ties go to the
/// earlier category).
pub fn round_to_total(weights: &[f64], total: f64) -> Vec<f64> {
    // Validation keeps totals and weights within `MAX_AMOUNT`; anything else is shown unrounded
    // rather than counted out step by step.
    let in_range = |v: &f64| v.is_finite() && v.abs() <= MAX_AMOUNT;
    if !in_range(&total) || !weights.iter().all(in_range) {
        return weights.to_vec();
    }
    let step = if total.fract() == 0.0 { 1.0 } else { 0.01 };
    let units_total = (total / step).round() as i64;
    let scaled = |i: usize| weights[i] / step;
    let mut units: Vec<i64> = (0..weights.len()).map(|i| scaled(i).floor() as i64).collect();
    // Flooring loses less than one step per weight: more than that left over is rounding noise
    // in weights that did not quite sum to the total, and is not handed out.
    let floored = units.iter().fold(0i64, |sum, u| sum.saturating_add(*u));
    let mut left = units_total
        .saturating_sub(floored)
        .min(weights.len() as i64);
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (scaled(a) - scaled(a).floor(), scaled(b) - scaled(b).floor());
        fb.partial_cmp(&fa)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    let mut i = 0;
    while left > 0 && !order.is_empty() {
        units[order[i % order.len()]] += 1;
        left -= 1;
        i += 1;
    }
    // Collected in place, into the units' own allocation.
    units.into_iter().map(|u| u as f64 * step).collect()
}

/// A weight as people write it: `35`, `12.5`, `0.33`.
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        itoa::Buffer::new().format(n as i64).to_owned()
    } else {
        let s = format!("{n:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A weight or total written as [`format_number`] spells it, straight into the page: a whole
/// number by `itoa`, without building the `String`. Digits, `-` and `.` need no escaping.
#[derive(Clone, Copy)]
struct Amount(f64);

impl Render for Amount {
    fn render_to(&self, out: &mut String) {
        let n = self.0;
        // Whole, tested by a round trip through `i64`: `fract` calls libm's `trunc` on baseline
        // x86-64.
        if n.abs() < 1e15 && n == n as i64 as f64 {
            out.push_str(itoa::Buffer::new().format(n as i64));
        } else {
            out.push_str(&format_number(n));
        }
    }
}

fn render(a: &Allocate, cx: &RenderCx, answer: Option<&SplitAnswer>) -> Markup {
    let t = cx.t;
    let title_id = a.title.as_ref().map(|_| cx.id_parts("title"));
    let total_number = Amount(a.total);
    if cx.surface.is_email() {
        let shown = round_to_total(&a.weights, a.total);
        return html! {
            (cx.root_start(title_id))
            @if let Some(title) = &a.title { h2 style=(email::TITLE) { span id=[title_id] { (Text(title)) } } }
            @if let Some(i) = &a.instruction { p style=(email::MUTED) { (Text(i)) } }
            @if let Some(r) = &a.routing { (r.render_email()) }
            table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;margin:0 0 8px;" {
                @for (item, w) in a.items.iter().zip(&shown) {
                    @let pct = if a.total > 0.0 { (w / a.total * 100.0).clamp(0.0, 100.0) } else { 0.0 };
                    @let filled = format_number(pct.round());
                    tr {
                        td width="40%" valign="top" style="padding:4px 8px 0 0;" { (Text(&item.label)) }
                        td width="45%" valign="middle" style="padding:4px 0 0;" {
                            // The bar: a filled cell and the track's cell, each with its colour
                            // as an attribute too (the track keeps 3:1 against the card).
                            table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;" {
                                tr {
                                    @if pct > 0.0 {
                                        td width={ (filled) "%" } height="10" bgcolor="#0969da" style="background:#0969da;font-size:0;line-height:0;" { "\u{a0}" }
                                    }
                                    @if pct < 100.0 {
                                        td height="10" bgcolor="#818b98" style="background:#818b98;font-size:0;line-height:0;" { "\u{a0}" }
                                    }
                                }
                            }
                        }
                        td valign="top" style="padding:4px 0 0 8px;white-space:nowrap;" { (format_number(*w)) (Text(&a.unit)) }
                    }
                    @if let Some(c) = &item.context {
                        tr { td colspan="3" style="padding:0 0 4px;color:#57606a;font-size:14px;" { (Text(c)) } }
                    }
                }
            }
            p style=(email::MUTED) { (t.total) ": " (total_number) (Text(&a.unit)) }
            (cx.root_end())
        };
    }
    let unanswered = SplitAnswer::default();
    let split = answer.unwrap_or(&unanswered);
    let (entries, _) = resolve_split(a, split);
    let weights: Vec<f64> = entries.iter().map(|(_, w)| *w).collect();
    let shown = round_to_total(&weights, a.total);
    let (item_name, op_name) = (cx.name_parts("item"), cx.name_parts("op"));
    let model = ListModel {
        total: Some(a.total),
        unit: Some(&a.unit),
        weights: Some(&a.weights),
        ..ListModel::new(a.title.as_deref(), a.routing.as_ref(), &a.items)
    };
    html! {
        (cx.root_start_with_model(title_id, &model))
        @if let Some(title) = &a.title { h2 class="pb-title" { span id=[title_id] { (Text(title)) } } }
        @if let Some(i) = &a.instruction { p class="pb-instruction" { (Text(i)) } }
        p class="pb-hint pb-unchanged" { (Text(t.list_unchanged)) }
        @if let Some(r) = &a.routing { (r.render()) }
        ul class="pb-alloc" data-pb-total=(total_number) data-pb-unit=(Text(&a.unit)) {
            @for (k, ((entry, _), w)) in entries.iter().zip(&shown).enumerate() {
                @let (state, label, context, id) = match entry {
                    Entry::Item(i) => (Parts(["i:", a.items[*i].id.as_str()]), a.items[*i].label.as_str(), a.items[*i].context.as_deref(), Some(a.items[*i].id.as_str())),
                    Entry::Added(l) => (Parts(["a:", l.as_str()]), l.as_str(), None, None),
                };
                @let k_str = Digits::new(k);
                @let wid = cx.numbered_id("-w", &k_str, "");
                @let ctx_id = context.map(|_| cx.numbered_id("-w", &k_str, "-ctx"));
                @let weight = Amount(*w);
                li class={ "pb-alloc-item" @if id.is_none() { " pb-added" } } data-pb-item=[id.map(Text)] {
                    input type="hidden" name=(item_name) value=(state);
                    label for=(wid) { (Text(label)) @if !a.unit.trim().is_empty() { " (" (Text(a.unit.trim())) ")" } }
                    input type="number" min="0" step="any" inputmode="decimal" class="pb-weight" id=(wid) name=(cx.numbered_name(".w.", &k_str, ""))
                        value=(weight) aria-describedby=[&ctx_id];
                    // What the page shows, posted back beside the weight: the one weight a reader
                    // raised is told from a sum to rescale (see `keep_raised_weight`).
                    input type="hidden" name=(cx.numbered_name(".was.", &k_str, "")) value=(weight);
                    meter aria-hidden="true" min="0" max=(total_number) value=(weight) {}
                    button type="submit" class="pb-remove" name=(op_name) value={ "remove:" (Num(k)) }
                        aria-label=(Fill(t.remove, label)) autofocus[cx.focus == Some(Focus::Remove(k))] { "✕" }
                    @if let Some(c) = context { p class="pb-context" id=[&ctx_id] { (Text(c)) } }
                    @if id.is_none() { p class="pb-context" { "(" (Text(t.added_by_you)) ")" } }
                }
            }
        }
        p class="pb-total" { (Text(t.total)) ": " output { (total_number) (Text(&a.unit)) } }
        (removed_list(cx, &a.items, &split.removed))
        (add_box(cx, t.add_category))
        @if a.note.enabled {
            (super::check::note_box(cx, cx.id_parts("note"), &cx.name_parts("note"), a.note.label.as_deref().unwrap_or(t.note), split.note.as_deref().unwrap_or("")))
        }
        (cx.root_end())
    }
}

// ---------------------------------------------------------------------------------------------
// Answers and export

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitAnswer {
    /// Reader weights by authored index; items absent keep their authored share.
    pub weights: BTreeMap<usize, f64>,
    pub added: Vec<(String, f64)>,
    pub removed: Vec<usize>,
    pub note: Option<String>,
}

/// A weight as JSON: a whole number as an integer (`30`, not `30.0`), as a person writes it.
fn amount_json(w: f64) -> JsonValue {
    if w.fract() == 0.0 && w.abs() < 9_007_199_254_740_992.0 {
        JsonValue::from(w as i64)
    } else {
        serde_json::Number::from_f64(w).map_or(JsonValue::Null, JsonValue::Number)
    }
}

fn weight(block: &str, field: &str, v: &JsonValue) -> Result<f64, AnswersError> {
    let w = v.as_f64().ok_or_else(|| {
        err(
            block,
            field,
            format!("must be a number, not {}", type_name(v)),
        )
    })?;
    if !w.is_finite() || w < 0.0 {
        return Err(err(block, field, format!("must be 0 or more, not {w}")));
    }
    if w > MAX_AMOUNT {
        return Err(err(
            block,
            field,
            format!("must be at most 10^15, not {}", quoted_amount(w)),
        ));
    }
    Ok(w)
}

fn split_json(block: &str, a: &Allocate, v: &JsonValue) -> Result<SplitAnswer, AnswersError> {
    let o = object(block, "", v)?;
    only_keys(block, "", o, &["weights", "added", "removed", "note"])?;
    let ids: Vec<&str> = a.items.iter().map(|i| i.id.as_str()).collect();
    let removed = removed_json(block, &ids, o)?;
    let mut weights = BTreeMap::new();
    if let Some(w) = o.get("weights").filter(|w| !w.is_null()) {
        for (id, value) in object(block, "weights", w)? {
            let field = format!("weights.{id}");
            let i = item_index(block, &field, &ids, id)?;
            if removed.contains(&i) {
                return Err(err(
                    block,
                    &field,
                    "this item is also in \"removed\"; give it a weight or remove it, not both",
                ));
            }
            weights.insert(i, weight(block, &field, value)?);
        }
    }
    let mut added = Vec::new();
    match o.get("added") {
        None | Some(JsonValue::Null) => {}
        Some(JsonValue::Array(entries)) => {
            for (k, e) in entries.iter().enumerate() {
                let field = format!("added[{k}]");
                let e = object(block, &field, e)?;
                only_keys(block, &field, e, &["label", "weight"])?;
                let label =
                    text(block, &join(&field, "label"), e.get("label"))?.ok_or_else(|| {
                        err(
                            block,
                            &field,
                            "an added category needs a non-empty \"label\"",
                        )
                    })?;
                let w = match e.get("weight") {
                    None => 0.0,
                    Some(v) => weight(block, &join(&field, "weight"), v)?,
                };
                added.push((label, w));
            }
        }
        Some(other) => {
            return Err(err(
                block,
                "added",
                format!("must be an array, not {}", type_name(other)),
            ));
        }
    }
    if removed.len() == a.items.len() && added.is_empty() {
        return Err(err(
            block,
            "removed",
            "every category was removed; keep or add at least one",
        ));
    }
    Ok(SplitAnswer {
        weights,
        added,
        removed,
        note: note_json(block, a.note.enabled, o)?,
    })
}

fn split_form(a: &Allocate, fields: &mut FormFields) -> Result<SplitAnswer, AnswersError> {
    let block = fields.block();
    let op = fields.op();
    let ids: Vec<&str> = a.items.iter().map(|i| i.id.as_str()).collect();
    let (entries, mut removed) = list_state(fields, &ids)?;
    let mut weighted: Vec<(Entry, f64)> = Vec::with_capacity(entries.len());
    for (k, e) in entries.into_iter().enumerate() {
        let posted = fields.one(&format!("w.{k}"));
        let raw = posted.unwrap_or("").trim().replace(',', ".");
        let w = if posted.is_none() {
            // No field at all (a hand-made post): the authored share.
            match &e {
                Entry::Item(i) => a.weights[*i],
                Entry::Added(_) => 0.0,
            }
        } else if raw.is_empty() {
            0.0
        } else {
            match typed_weight(&raw) {
                Some(w) => w,
                None => {
                    let label = match &e {
                        Entry::Item(i) => a.items[*i].label.to_string(),
                        Entry::Added(l) => l.clone(),
                    };
                    return Err(err(
                        block,
                        &format!("w.{k}"),
                        format!(
                            "the weight of \"{label}\" must be a number from 0 to 10^15, not \"{raw}\""
                        ),
                    ));
                }
            }
        };
        weighted.push((e, w));
    }
    let shown: Vec<Option<f64>> = (0..weighted.len())
        .map(|k| shown_weight(fields.one(&format!("was.{k}"))))
        .collect();
    let typed: Vec<f64> = weighted.iter().map(|(_, w)| *w).collect();
    if let Some(kept) = keep_raised_weight(a.total, &typed, &shown) {
        for ((_, w), kept) in weighted.iter_mut().zip(kept) {
            *w = kept;
        }
    }
    let mut list: Vec<Entry> = weighted.iter().map(|(e, _)| e.clone()).collect();
    let before = list.clone();
    let add = fields.text("add");
    let adding = add.is_some();
    apply_list_op(
        block,
        &ids,
        &mut list,
        &mut removed,
        op.filter(|o| !o.starts_with("up") && !o.starts_with("down")),
        add,
    )?;
    let mut weights = BTreeMap::new();
    let mut added = Vec::new();
    // Each listed entry takes the weight of the first posted entry equal to it that no other
    // entry took: two added categories with the same label keep their own weights. The row a
    // `remove:K` took out is the one removed, even when another row has the same label.
    let mut taken = vec![false; weighted.len()];
    if let Some(k) = op
        .and_then(|o| o.strip_prefix("remove:"))
        .and_then(|k| k.parse::<usize>().ok())
        .filter(|&k| k < taken.len())
    {
        taken[k] = true;
    }
    let posted: Vec<Option<f64>> = list
        .iter()
        .map(|e| {
            let k = (0..weighted.len()).find(|&k| !taken[k] && weighted[k].0 == *e)?;
            taken[k] = true;
            Some(weighted[k].1)
        })
        .collect();
    let removed_weight: f64 = weighted
        .iter()
        .zip(&taken)
        .filter(|(_, taken)| !**taken)
        .map(|((_, w), _)| w)
        .sum();
    for (e, w) in list.iter().zip(&posted) {
        match e {
            Entry::Item(i) => {
                weights.insert(*i, w.unwrap_or(0.0));
            }
            Entry::Added(l) => added.push((l.clone(), w.unwrap_or(0.0))),
        }
    }
    // A category removed in this post changes the sum on purpose: hand its weight to the rest
    // in proportion.
    if removed_weight > 0.0 {
        let rest: f64 = weights.values().chain(added.iter().map(|(_, w)| w)).sum();
        let factor = if rest > 0.0 {
            (rest + removed_weight) / rest
        } else {
            1.0
        };
        weights.values_mut().for_each(|w| *w *= factor);
        added.iter_mut().for_each(|(_, w)| *w *= factor);
    }
    // A restored category comes back at its authored share, and the others make room for it
    // in proportion: the sum the reader held stays, and a removal undone is undone exactly.
    let restored_items: Vec<usize> = list
        .iter()
        .zip(&posted)
        .filter_map(|(e, w)| match e {
            Entry::Item(i) if w.is_none() => Some(*i),
            _ => None,
        })
        .collect();
    let mut restored = 0.0;
    for &i in &restored_items {
        weights.insert(i, a.weights[i]);
        restored += a.weights[i];
    }
    if restored > 0.0 {
        let is_restored = |i: &usize| restored_items.contains(i);
        let others: f64 = weights
            .iter()
            .filter(|(i, _)| !is_restored(i))
            .map(|(_, w)| *w)
            .chain(added.iter().map(|(_, w)| *w))
            .sum();
        if others > 0.0 {
            let factor = ((others - restored) / others).max(0.0);
            weights
                .iter_mut()
                .filter(|(i, _)| !is_restored(i))
                .for_each(|(_, w)| *w *= factor);
            added.iter_mut().for_each(|(_, w)| *w *= factor);
        }
    }
    if weights.is_empty() && added.is_empty() {
        fields.notice("every category was removed; restore or add one");
    }
    fields.set_focus(focus_after(op, &before, &list, adding));
    // The page has no note box when the note field is off: a posted note is not the reader's.
    let note = fields.text("note").filter(|_| a.note.enabled);
    Ok(SplitAnswer {
        weights,
        added,
        removed,
        note,
    })
}

/// A weight as a form field holds it, already trimmed, with `.` for a decimal comma: a number
/// from 0 to [`MAX_AMOUNT`], or `None`.
fn typed_weight(raw: &str) -> Option<f64> {
    raw.parse::<f64>()
        .ok()
        .filter(|w| w.is_finite() && (0.0..=MAX_AMOUNT).contains(w))
}

/// A weight the page showed (`bN.was.K`), read as a typed weight is; `None` when it is missing,
/// blank or not a weight: what the page showed is then unknown.
fn shown_weight(posted: Option<&str>) -> Option<f64> {
    typed_weight(&posted?.trim().replace(',', "."))
}

/// A field shows a share of the total, so a weight typed into it is the share the reader gets,
/// with the script or without it. The script applies a typed weight on its own (`setUnits`); a
/// plain form posts every field at once. So when the posted weights sum to more than `total`
/// and exactly one of them differs from what the page showed (`shown`), that one is the
/// reader's: it keeps its value (at most the total) and the others share what is left in
/// proportion to what they had, counted in the script's whole steps and rounded as it rounds,
/// so both give the same digits. `None` when the rule does not apply (a shown weight unknown,
/// several changed, or a sum of at most the total): the export then rescales in proportion.
fn keep_raised_weight(
    total: f64,
    typed: &[f64],
    shown: &[Option<f64>],
) -> Option<Vec<f64>> {
    let shown: Vec<f64> = shown.iter().copied().collect::<Option<_>>()?;
    // Summed in order from 0, as the script sums.
    let sum = typed.iter().fold(0.0, |s, w| s + w);
    if typed.len() != shown.len() || sum <= total {
        return None;
    }
    let mut changed = (0..typed.len()).filter(|&k| typed[k] != shown[k]);
    let (Some(k), None) = (changed.next(), changed.next()) else {
        return None;
    };
    let step = if total.fract() == 0.0 { 1.0 } else { 0.01 };
    let whole = (total / step).round();
    let base: Vec<f64> = shown.iter().map(|w| (w / step).round().min(whole)).collect();
    let units = set_units(&base, k, (typed[k] / step).round(), whole);
    Some(units.into_iter().map(|u| u * step).collect())
}

/// The script's `setUnits`, step for step (in whole steps, as `f64`, as the script counts):
/// entry `k` set to `v` of `whole`. Lowering leaves a remainder; raising spends the remainder
/// first, then takes from the others in proportion to `base`.
fn set_units(base: &[f64], k: usize, v: f64, whole: f64) -> Vec<f64> {
    let mut units = base.to_vec();
    let v = v.min(whole).max(0.0);
    let sum = base.iter().fold(0.0, |s, u| s + u);
    let pool = (whole - sum).max(0.0);
    let d = v - base[k];
    if d <= 0.0 {
        units[k] = v;
        return units;
    }
    let from_pool = d.min(pool);
    let others = sum - base[k];
    let rest = (d - from_pool).min(others);
    units[k] = base[k] + from_pool + rest;
    if rest > 0.0 {
        let mut rest_of: Vec<f64> = (0..base.len())
            .filter(|&i| i != k)
            .map(|i| base[i])
            .collect();
        rescale(&mut rest_of, others - rest);
        let shares = round_to_total(&rest_of, others - rest);
        let at = (0..base.len()).filter(|&i| i != k);
        for (i, share) in at.zip(shares) {
            units[i] = share;
        }
    }
    units
}

/// The resolved split: (entry, unrounded weight) summing to `total`, plus a notice when the
/// reader's weights had to be rescaled.
fn resolve_split(a: &Allocate, ans: &SplitAnswer) -> (Vec<(Entry, f64)>, Option<String>) {
    let kept: Vec<usize> = (0..a.items.len())
        .filter(|i| !ans.removed.contains(i))
        .collect();
    // Removing a category hands its weight to the rest in proportion (evenly if all are 0):
    // that is rescaling the kept authored weights to the total.
    let mut base: Vec<f64> = kept.iter().map(|i| a.weights[*i]).collect();
    rescale(&mut base, a.total);
    let mut entries: Vec<(Entry, f64)> = kept
        .iter()
        .zip(&base)
        .map(|(i, b)| (Entry::Item(*i), ans.weights.get(i).copied().unwrap_or(*b)))
        .collect();
    entries.extend(ans.added.iter().map(|(l, w)| (Entry::Added(l.clone()), *w)));
    let sum: f64 = entries.iter().map(|(_, w)| w).sum();
    let mut notice = None;
    if (sum - a.total).abs() > 1e-6 {
        let mut scaled: Vec<f64> = entries.iter().map(|(_, w)| *w).collect();
        rescale(&mut scaled, a.total);
        for (e, w) in entries.iter_mut().zip(scaled) {
            e.1 = w;
        }
        let (s, t) = (
            format_number((sum * 100.0).round() / 100.0),
            format_number(a.total),
        );
        notice = Some(if sum <= 0.0 {
            format!("every weight was 0, so the {t}{} was split evenly", a.unit)
        } else {
            format!(
                "the weights summed to {s}{u}, so they were rescaled to {t}{u}",
                u = a.unit
            )
        });
    }
    (entries, notice)
}

/// Spec §4.5.3.
fn export_split(a: &Allocate, ans: &SplitAnswer) -> (String, Option<String>) {
    let (entries, notice) = resolve_split(a, ans);
    let weights: Vec<f64> = entries.iter().map(|(_, w)| *w).collect();
    let shown = round_to_total(&weights, a.total);
    let authored = round_to_total(&a.weights, a.total);
    let edited = !ans.removed.is_empty() || !ans.added.is_empty();
    let moved = entries
        .iter()
        .zip(&shown)
        .any(|((e, _), w)| matches!(e, Entry::Item(i) if authored[*i] != *w));
    let tag = if edited {
        "reader edited the list"
    } else if moved {
        "reader reweighted"
    } else {
        "reader kept the allocation unchanged"
    };
    let u = &a.unit;
    let mut out = header(
        "Allocation",
        tag,
        a.routing.as_ref().map(|r| r.from.as_str()),
        a.title.as_deref(),
    );
    let lines: Vec<String> = entries
        .iter()
        .zip(&shown)
        .map(|((e, _), w)| match e {
            Entry::Item(i) => {
                let item = &a.items[*i];
                let delta = if authored[*i] == *w {
                    "(unchanged)".to_string()
                } else {
                    format!("(was {}{u})", format_number(authored[*i]))
                };
                let context = item
                    .context
                    .as_ref()
                    .map(|c| format!(" — {c}"))
                    .unwrap_or_default();
                format!(
                    "- {}: {}{u} {delta}{context}",
                    item.label,
                    format_number(*w)
                )
            }
            Entry::Added(label) => {
                format!(
                    "- {}: {}{u} — (added by reader)",
                    reviewer::text(label),
                    format_number(*w)
                )
            }
        })
        .collect();
    out.push_str(&lines.join("\n"));
    removed_line(&mut out, &a.items, &ans.removed);
    out.push_str(&format!("\n\nTotal: {}{u}", format_number(a.total)));
    footer(
        &mut out,
        ans.note.as_deref(),
        a.routing.as_ref().map(|r| r.return_prompt.as_str()),
    );
    (out, notice)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `weights` rescaled, as a new list.
    fn rescaled(weights: &[f64], total: f64) -> Vec<f64> {
        let mut w = weights.to_vec();
        rescale(&mut w, total);
        w
    }

    #[test]
    fn rounding_keeps_the_total() {
        let w = rescaled(&[1.0, 1.0, 1.0], 100.0);
        assert_eq!(round_to_total(&w, 100.0), vec![34.0, 33.0, 33.0]);
        let w = rescaled(&[2.0, 1.0], 10.5);
        let r = round_to_total(&w, 10.5);
        assert!((r.iter().sum::<f64>() - 10.5).abs() < 1e-9);
        assert_eq!(format_number(r[0]), "7");
        assert_eq!(format_number(0.1 + 0.2), "0.3");
    }

    #[test]
    fn rounding_never_counts_out_more_than_one_step_per_weight() {
        // Out-of-range or non-finite input is shown as it is; before, 1e308 asked for about
        // 9.2e18 single-step rounds.
        let huge = rescaled(&[1e308, 1e308], 1e308);
        assert_eq!(round_to_total(&huge, 1e308).len(), 2);
        assert_eq!(round_to_total(&[f64::NAN, 1.0], 100.0)[1], 1.0);
        // In range but not summing to the total: at most one extra step per weight.
        assert_eq!(round_to_total(&[1.0, 1.0], 1e15), vec![2.0, 2.0]);
        // The largest total, in hundredths: no overflow, and the sum is kept.
        let w = rescaled(&[1.0, 2.0], 999_999_999_999_999.5);
        let r = round_to_total(&w, 999_999_999_999_999.5);
        assert!(
            (r.iter().sum::<f64>() - 999_999_999_999_999.5).abs() < 1.0,
            "{r:?}"
        );
    }

    #[test]
    fn amounts_render_as_format_number_spells_them() {
        for n in [
            0.0,
            -0.0,
            7.0,
            -7.0,
            12.5,
            0.33,
            1e15,
            1e15 - 1.0,
            -1e15,
            1e300,
            0.005,
            f64::NAN,
        ] {
            assert_eq!(Amount(n).render().into_string(), format_number(n), "{n}");
        }
    }

    #[test]
    fn huge_numbers_read_short_in_messages() {
        assert_eq!(quoted_amount(1e308), "1e308");
        assert_eq!(quoted_amount(250.5), "250.5");
    }

    /// `keep_raised_weight` with every shown weight known, as the page's digits.
    fn kept(total: f64, typed: &[f64], shown: &[f64]) -> Option<Vec<String>> {
        let shown: Vec<Option<f64>> = shown.iter().map(|w| Some(*w)).collect();
        keep_raised_weight(total, typed, &shown)
            .map(|w| w.into_iter().map(format_number).collect())
    }

    #[test]
    fn a_raised_weight_is_kept_and_the_others_share_the_rest_in_proportion() {
        let split = [50.0, 30.0, 20.0];
        assert_eq!(
            kept(100.0, &[60.0, 30.0, 20.0], &split),
            Some(vec!["60".into(), "24".into(), "16".into()])
        );
        // At most the total: the others give everything.
        assert_eq!(
            kept(100.0, &[50.0, 2e14, 20.0], &split),
            Some(vec!["0".into(), "100".into(), "0".into()])
        );
        // Rounded as the script's sliders round (unit-widgets.test.mjs: 45, 21, 13, 13, 8).
        assert_eq!(
            kept(
                100.0,
                &[45.0, 25.0, 15.0, 15.0, 10.0],
                &[35.0, 25.0, 15.0, 15.0, 10.0]
            ),
            Some(["45", "21", "13", "13", "8"].map(String::from).to_vec())
        );
        // A typed fraction counts in the script's whole steps.
        assert_eq!(
            kept(100.0, &[60.4, 30.0, 20.0], &split),
            Some(vec!["60".into(), "24".into(), "16".into()])
        );
    }

    #[test]
    fn several_changed_or_no_more_than_the_total_is_left_to_the_rescale() {
        let split = [50.0, 30.0, 20.0];
        // Two fields changed: which one the reader meant is not known.
        assert_eq!(kept(100.0, &[60.0, 40.0, 20.0], &split), None);
        // Lowered, or nothing changed: the sum is at most the total.
        assert_eq!(kept(100.0, &[40.0, 30.0, 20.0], &split), None);
        assert_eq!(kept(100.0, &split, &split), None);
        // The script's own fields after a raise: all three differ, and they sum to the total.
        assert_eq!(kept(100.0, &[60.0, 24.0, 16.0], &split), None);
    }

    #[test]
    fn an_unknown_shown_weight_leaves_the_post_to_the_rescale() {
        let typed = [60.0, 30.0, 20.0];
        assert_eq!(
            keep_raised_weight(100.0, &typed, &[Some(50.0), None, Some(20.0)]),
            None
        );
        for posted in [None, Some(""), Some(" "), Some("x"), Some("-1"), Some("2e15"), Some("inf")] {
            assert_eq!(shown_weight(posted), None, "{posted:?}");
        }
        assert_eq!(shown_weight(Some(" 12,5 ")), Some(12.5));
    }

    #[test]
    fn a_fractional_total_counts_in_hundredths() {
        assert_eq!(
            kept(2.5, &[1.5, 0.83, 0.83], &[0.84, 0.83, 0.83]),
            Some(vec!["1.5".into(), "0.5".into(), "0.5".into()])
        );
        assert_eq!(
            kept(10.5, &[7.0, 3.15, 2.1], &[5.25, 3.15, 2.1]),
            Some(vec!["7".into(), "2.1".into(), "1.4".into()])
        );
    }

    /// The export of a form post of `fields` for a 50/30/20 split.
    fn posted(fields: &[(&str, &str)]) -> String {
        let src = "```allocate\n{\"version\":\"1\",\"items\":[{\"id\":\"a\",\"label\":\"A\",\"weight\":50},{\"id\":\"b\",\"label\":\"B\",\"weight\":30},{\"id\":\"c\",\"label\":\"C\",\"weight\":20}]}\n```\n";
        let mut pairs = vec![("pb.source".to_string(), src.to_string())];
        pairs.extend(fields.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let post = crate::answers_from_form(&pairs).map_err(|e| e.to_string());
        let post = post.unwrap_or_else(|e| panic!("refused: {e}"));
        crate::export(&post.doc, &post.responses).markdown
    }

    #[test]
    fn a_plain_form_gives_the_share_typed_into_one_field() {
        let rows = |typed: [&'static str; 3], shown: Option<[&'static str; 3]>| {
            let mut fields = Vec::new();
            for (k, id) in ["i:a", "i:b", "i:c"].into_iter().enumerate() {
                fields.push(("b1.item", id));
                fields.push((["b1.w.0", "b1.w.1", "b1.w.2"][k], typed[k]));
                if let Some(shown) = shown {
                    fields.push((["b1.was.0", "b1.was.1", "b1.was.2"][k], shown[k]));
                }
            }
            posted(&fields)
        };
        let page = Some(["50", "30", "20"]);
        assert_eq!(
            rows(["60", "30", "20"], page),
            "(reader reweighted)\n\n- A: 60% (was 50%)\n- B: 24% (was 30%)\n- C: 16% (was 20%)\n\nTotal: 100%\n"
        );
        // Without what the page showed, 60 against 30 + 20 is 55%.
        assert!(rows(["60", "30", "20"], None).contains("- A: 55% (was 50%)"));
        assert!(rows(["60", "30", "20"], Some(["50", "30", "?"])).contains("- A: 55%"));
        // Two changed: rescaled in proportion, as before.
        assert!(rows(["60", "40", "20"], page).contains("- A: 50% (unchanged)"));
    }

    #[test]
    fn all_zero_is_an_even_split() {
        assert_eq!(rescaled(&[0.0, 0.0], 50.0), vec![25.0, 25.0]);
    }
}
