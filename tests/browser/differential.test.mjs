// The script's export against the engine's, on random form states. For every component kind, and
// for documents mixing them, thousands of states from a seeded generator, usual and hostile (picks
// out of range, duplicates, blank and padded text, lists out of step with the document, every list
// edit and some that are none, weights as people type them and as nobody should, the weights the
// page showed beside them, one typed over as a reader without JavaScript does), go through
// the enhancement script (engine/assets/js) in jsdom and, as the rendered form's own post, through
// the real `passback serve`. The Markdown and the notices must be the same byte for byte, and a
// state one refuses the other must refuse in the same words.
//
// A post with a list edit (`bN.op`) is answered with the form again, not an export: for those the
// engine's export is what the reader gets next with "Get answers", that page's fields posted back.
// That page shows the edited state, not the post: weights rounded and text as HTML reads it (a lone
// CR becomes LF, a one-line field drops line breaks). Edit states keep clear of those, and compare
// Markdown only, since the weights the page shows sum to the total and need no rescale notice; the
// page's own fields are then compared in full as one more state. What the page cannot hold is
// still posted, edit or not: a note for a list with no note box, an option and Other in one radio
// group, an entry listed twice (two added categories of one label keep their own weights), an item
// both listed and removed (and removed again), fields for blocks the document lacks.
//
// Comments on the prose ride along: the whole-document box and the script's `pb.note.K` fields,
// on leaves that exist or not, quoting an excerpt of the page's text (with its spaces turned into
// line breaks and runs), the whole leaf, or text that is not there. Documents of prose of every
// kind hold the engine's reading of each leaf's text (from its parse) to the script's (from the
// page) through the quotes each accepts and the leaves the export cuts short.
//
// PB_DIFF_SEED=n replays a run (the seed is printed); PB_DIFF_STATES sets the states per kind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from './harness.mjs';
import { loadScript } from './unit-harness.mjs';
import { ANSWERS } from './people.mjs';

const SEED = process.env.PB_DIFF_SEED ? Number(process.env.PB_DIFF_SEED) >>> 0 : randomInt(2 ** 32);
const STATES = Number(process.env.PB_DIFF_STATES) || 2000;
const DOCS = 12; // documents per kind; the states are spread over them

let server;
let window;
let agent;

before(async () => {
  console.log(`differential seed ${SEED} (PB_DIFF_SEED=${SEED} replays it), ${STATES} states per kind`);
  server = await startServer();
  agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  ({ window } = await loadScript(''));
});
after(() => {
  agent?.destroy();
  window?.close();
  server?.stop();
});

// ---------------------------------------------------------------------------------------------
// Randomness: xorshift32, one stream per kind so that each replays alone.

function tools(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return {
    int,
    chance: (p) => next() < p,
    pick: (list) => list[int(list.length)],
    shuffle: (list) => {
      const a = list.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    },
  };
}

const streamSeed = (kind) => [...kind].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, SEED ^ 2166136261);

// ---------------------------------------------------------------------------------------------
// Documents

const WORDS = ['Room number', 'PIN', 'Magic link', 'EU', 'US', 'APAC', 'Growth & GTM', 'R&D <core>', '"Quoted"',
  'Ünïcödé', 'emoji 🎉', 'a_b *c*', 'Trailing ', ' Leading', 'back\\slash', 'x → y', 'Hiring', '- dash', '1. one'];
const HEBREW = ['קוד PIN', 'מספר חדר', 'קישור קסם', 'אירופה', 'צמיחה', 'גיוס'];
const IDS = ['eu', 'us', 'apac', 'a', 'b', 'c', 'item-7', 'x_1', 'Ünï', '9', 'a:b', 'i:x', 'two words'];
const TOTALS = [100, 10.5, 1e15, 2.5, 999999999999999.5, 99.99, 250000, 0.01, 123456789.25, 7, 1, 0.3];
const UNITS = ['%', ' days', '$', '', 'pts', '€', ' people', '%'];
const SOURCES = [
  'graph TD; A[Paste] --> B[Review] --> C[Copy back];',
  'graph LR\nA-->B\nA-->B\nB-->C\nC-->A',
  'flowchart TD\n  s([Start]) --> d{Decide}\n  d -->|yes| e[End]\n  d -->|no| s',
  'graph TD\nA & B --> C\nsubgraph S\nx --- y\nend',
  'sequenceDiagram\nA->>B: hi',
  'graph TD\nA',
];

function docTools(t, lang) {
  const words = lang === 'he' ? HEBREW : WORDS;
  const word = () => t.pick(words);
  const maybe = (p, f) => (t.chance(p) ? f() : undefined);
  const routing = () => ({
    from: t.pick(lang === 'he' ? ['עדי', 'נועה '] : ['Elad', 'Dana ', 'Ops team']),
    return_prompt: t.pick(['Send it back to Elad.', '', '   ', 'Reply to Dana by Friday.']),
  });
  const options = (lo, hi) => Array.from({ length: lo + t.int(hi - lo + 1) }, word);
  const openField = () => ({ label: t.pick(lang === 'he' ? ['עוד:', 'אחר'] : ['Also needed:', 'I need to check with:', 'Other ']) });
  return { word, maybe, routing, options, openField };
}

const fence = (kind, spec) => `\`\`\`${kind}\n${JSON.stringify(spec, null, 1)}\n\`\`\``;
const clean = (o) => JSON.parse(JSON.stringify(o));

/** One component of `kind` as Markdown; `exact` is false when its edited page cannot be exact. */
function component(kind, t, i) {
  const lang = i % 5 === 1 ? 'he' : 'en';
  const d = docTools(t, lang);
  const envelope = () => ({ routing: d.maybe(0.3, d.routing), skill_version: d.maybe(0.2, () => t.pick(['1.5', '3.3', ''])) });
  const question = (multi) => clean({
    version: '1', question: d.word() + '?', options: d.options(2, multi ? 6 : 4),
    recommended: d.maybe(0.3, d.word), open_field: d.maybe(0.3, d.openField), ...envelope(),
  });
  switch (kind) {
    case 'single-choice': return { md: fence(kind, question(false)) };
    case 'multi-choice': return { md: fence(kind, question(true)) };
    case 'open-question':
      return { md: fence(kind, clean({ version: '1', question: d.word() + '?', ...envelope() })) };
    case 'questionnaire': {
      const ids = t.shuffle(['q1', 'q2', 'q3', 'q4', 'q5']);
      const questions = Array.from({ length: 1 + t.int(5) }, (_, k) => {
        const free = t.chance(0.2);
        return clean({
          id: t.chance(0.1) ? 'q1' : ids[k], question: d.word() + '?', section: d.maybe(0.4, () => t.pick(['Auth', 'Data'])),
          multi: d.maybe(0.4, () => true), options: free ? [] : d.options(2, 5),
          open_field: free || t.chance(0.3) ? d.openField() : undefined,
        });
      });
      return { md: fence(kind, clean({ version: '1', title: d.maybe(0.5, d.word), questions, ...envelope() })) };
    }
    case 'prioritize':
    case 'allocate': {
      const total = kind === 'allocate' ? TOTALS[i % TOTALS.length] : undefined;
      const weight = () => t.pick([0, 1, 10, 25, 33.3, 50, 0.5, 1e15, 5e14, 7, 100]);
      const zeros = t.chance(0.1);
      // One category of 10^15 (TOTALS[2]): rescaled, it can land a hair past the largest weight.
      const items = t.shuffle(IDS).slice(0, i === 2 ? 1 : 1 + t.int(6)).map((id) => clean({
        id, label: d.word(), context: d.maybe(0.3, d.word), weight: kind === 'allocate' ? (zeros ? 0 : weight()) : undefined,
      }));
      const spec = clean({
        version: '1', title: d.maybe(0.5, d.word), items, total, unit: kind === 'allocate' ? UNITS[i % UNITS.length] : undefined,
        note_field: d.maybe(0.2, () => ({ enabled: false })), ...envelope(),
      });
      // Past 2^53 / 100 a total's hundredths are not exact on the page, and a split rescaled to
      // 10^15 can land a hair past it, a weight the engine then refuses from its own page.
      return { md: fence(kind, spec), exact: !(total > 2 ** 53 / 100) };
    }
    case 'mermaid':
      return { md: fence(kind, clean({ version: '1', source: SOURCES[i % SOURCES.length], title: d.maybe(0.5, d.word) })) };
    default: throw new Error(kind);
  }
}

const KINDS = ['single-choice', 'multi-choice', 'open-question', 'questionnaire', 'prioritize', 'allocate', 'mermaid'];

// Prose: every kind of leaf, and the inline text a page shows differently from its Markdown.
const INLINE = ['plain words', '*emphasis*', '**strong**', '`code  with   spaces`', '[a link](https://example.com/x)',
  '<https://example.com/auto>', '![an image](pic.png)', '&amp; &lt;b&gt; &nbsp;here', '&#x5D0;&#x5D1;', 'emoji 🎉 and 🧑‍🤝‍🧑',
  'עברית כאן', 'a "quoted" word', 'x → y', '~~struck~~', '<b>raw</b> <i>inline</i>', 'soft\nbreak', 'hard  \nbreak',
  'back\\slash', 'tab\there', 'footnote[^n]', 'A'.repeat(80), 'short', 'Mixed-case, punctuation; and: more.'];

/** A sentence of 1 to 14 pieces; long enough, often, to be cut in the export. */
function sentence(t) {
  return Array.from({ length: 1 + t.int(14) }, () => t.pick(INLINE)).join(' ');
}

/** A document of prose of every kind with components among it. */
function prose(t, i) {
  const parts = [];
  const blocks = [
    () => `${'#'.repeat(1 + t.int(6))} ${sentence(t).replace(/\n/g, ' ')}`,
    () => sentence(t),
    () => Array.from({ length: 1 + t.int(4) }, () => `- ${t.chance(0.3) ? '[ ] ' : ''}${sentence(t).replace(/\n/g, ' ')}`).join('\n'),
    () => Array.from({ length: 1 + t.int(3) }, (_, k) => `${k + 1}. ${sentence(t).replace(/\n/g, ' ')}`).join('\n\n'),
    () => `- outer ${t.pick(INLINE)}\n  - inner ${t.pick(INLINE)}\n\n    more of the inner item`,
    () => `> ${sentence(t).replace(/\n/g, '\n> ')}\n>\n> > nested ${t.pick(INLINE)}`,
    () => `| ${t.pick(INLINE)} | b |\n|---|:-:|\n| ${t.pick(['', ' ', 'x'])} | ${t.pick(INLINE).replace(/\n/g, ' ')} |\n| | |`,
    () => `\`\`\`${t.pick(['', 'rust', 'text x'])}\n${t.pick(['fn  main() {\n\tok\n}', '  lead and trail  ', 'a\r\nb'])}\n\`\`\``,
    () => `    indented  code\n    two`,
    () => `Setext ${t.pick(INLINE).replace(/\n/g, ' ')}\n---`,
  ];
  let exact = true;
  for (let k = 0; k < 3 + t.int(8); k++) {
    parts.push(t.pick(blocks)());
    if (t.chance(0.25)) {
      const c = component(t.pick(KINDS), t, i + k);
      exact &&= c.exact !== false;
      parts.push(c.md);
    }
  }
  parts.push(component('single-choice', t, i).md);
  if (parts.some((p) => p.includes('[^n]'))) parts.push(`[^n]: The note ${t.pick(INLINE).replace(/\n/g, ' ')}.`);
  return { md: parts.join('\n\n') + '\n', exact };
}

/** A document mixing three to all seven kinds, with prose, maybe a video and an invalid component. */
function mixed(t, i) {
  const parts = ['# Decisions', 'Some prose with a [link](https://example.com).'];
  let exact = true;
  for (const kind of t.shuffle(KINDS).slice(0, 3 + t.int(5))) {
    const c = component(kind, t, i + t.int(5));
    exact &&= c.exact !== false;
    parts.push(c.md);
    if (t.chance(0.3)) parts.push(fence('youtube', { version: '1', id: 'dQw4w9WgXcQ' }));
    if (t.chance(0.2)) parts.push(fence('single-choice', { version: '1', question: ' ', options: [] }));
  }
  return { md: parts.join('\n\n') + '\n', exact };
}

// ---------------------------------------------------------------------------------------------
// Form states: [name, value] pairs as the form would post them.

const TYPED = ['', ' ', '\t\n', 'Yes', '  padded  ', 'two\r\nlines', 'one\nline', '\u00a0nbsp\u3000', 'zero\u200bwidth',
  '\u2028sep\u2029', '\u0085next\u0085', '\ufeffbom', '**bold** & <i>', 'émoji 🎉', 'עברית', '- list', 'Other: again', 'a\rb', 'end\r',
  // What a reviewer writes to forge entries of the export: each must stay under its own entry.
  'ok\n\n**Q: Which wiki do we move to?**\nAnswer: Stay where we are', '\n## Comments on the text\n\n- On the whole document — ship it',
  '# heading', '1. one\n2) two\n  10. ten', '<b>bold</b> <!-- c --> \\<i> \\\\<a>', '---', '===\n___', '> quote\n>> more', '* star\n+ plus',
  '```\n~~~', 'Note: sneaked\nAnswers: two', '\u000b- vt\u000c# ff\u001c1. fs', '|---|:-:|', '\t- tab'];
// Weights the engine reads (blank is 0, a comma a decimal point) and ones it refuses.
const WEIGHTS = ['', ' ', '12.5', '12,5', ' 7 ', '\u00a012\u00a0', '0', '-0', '0.001', '33.333', '1e2', '1E2', '+5', '.5',
  '5.', ' 3,25 ', '\u00855\u0085', '1e15', '1000000000000000', '999999999999999.9', '1e-400', '0000012'];
const BAD_WEIGHTS = ['-3', '-0.5', '1000000000000001', '2e15', '1e16', '1e400', 'ten', 'NaN', 'inf', '-inf', 'Infinity',
  '0x10', '1_000', '1,000.5', '12\u200b', '\ufeff5', '١٢', '5 5', '5e', 'e5', '.', '+', '--1'];
const PICKS = ['-1', '+1', '01', ' 1', '', 'x', '1.0', 'OTHER', '99999999999999999999'];
const POSITIONS = ['0', '-1', '', 'x', '+2', '02', ' 1', '1.0', '99999999999999999999'];
const NONSENSE = ['', 'jump:1', 'up', 'up:', 'UP:0', 'up:-1', 'up:+0', 'remove:x', 'restore:', 'add:x', 'down:99999999999999999999', 'update', 'downward'];

/**
 * What a state draws from: `editing` when it makes a list edit, `bad(p)` true with probability p
 * in a hostile state (half of them) and never otherwise, `typed(line)` text as a reader types it.
 */
function stateTools(t, editing) {
  const hostile = t.chance(0.5);
  // What an edited page keeps exactly: no lone CR, which HTML reads as LF; in a one-line field
  // (`line`), no line break at all.
  const typed = (line) => {
    const s = t.pick(TYPED) + (t.chance(0.2) ? t.pick(TYPED) : '');
    return editing ? s.replace(line ? /[\r\n]/g : /\r(?!\n)/g, '') : s;
  };
  return { t, editing, typed, bad: (p) => hostile && t.chance(p) };
}

function questionsState(c, b, put) {
  const { t, typed, bad } = c;
  const qs = b.model.questions;
  // Now and then a question the block lacks: the engine never reads its fields.
  for (let qi = 0; qi < qs.length + (bad(0.05) ? 1 : 0); qi++) {
    if (t.chance(0.25)) continue;
    const q = qs[qi] || { mode: 'single', options: [] };
    const f = (s, v) => put(`q${qi}.${s}`, v);
    const stray = bad(0.1); // fields this question's form does not have
    const choice = q.mode === 'single' || q.mode === 'multi';
    if ((q.mode === 'open' || stray) && t.chance(0.8)) f('text', typed());
    if (choice || stray) {
      const n = (q.options || []).length;
      // Two values in a radio group (an option and Other, two options, one twice): refused unless
      // they are one answer.
      const count = q.mode === 'multi' ? t.int(n + 2) : t.chance(0.3) ? 0 : bad(0.2) ? 2 : 1;
      for (let k = 0; k < count; k++) {
        const other = t.chance(count === 2 && q.mode !== 'multi' ? 0.4 : 0.15);
        f('pick', bad(0.15) ? (t.chance(0.5) ? String(n + t.int(3)) : t.pick(PICKS)) : other ? 'other' : String(t.int(n)));
      }
    }
    if ((q.mode !== 'open' || stray) && t.chance(0.4)) f('other', typed(true));
    if ((choice || stray) && t.chance(0.3)) f('note', typed());
  }
}

/** Prioritize and allocate: the list, removed items, positions or weights, an edit, add, note. */
function listState(c, b, put) {
  const { t, editing, typed, bad } = c;
  const allocate = b.kind === 'allocate';
  const ids = b.model.items.map((it) => it.id);
  const removed = ids.filter(() => t.chance(0.2));
  let list = ids.filter((id) => !removed.includes(id)).map((id) => `i:${id}`);
  if (!allocate && t.chance(0.4)) list = t.shuffle(list); // moved with JavaScript: the list itself is in order
  // Added labels, often the same one twice (each keeps its own weight).
  const label = () => (t.chance(0.7) ? t.pick(['Security review', 'Docs', ' Docs ']) : typed());
  for (let k = t.chance(0.3) ? 1 + t.int(2) : 0; k > 0; k--) list.splice(t.int(list.length + 1), 0, `a:${label()}`);
  if (bad(0.4)) {
    // Out of step with the document, edit or not; an edit often lists a removed item (how 3), for
    // the edit to remove it again.
    const how = editing && removed.length && t.chance(0.3) ? 3 : t.int(8);
    if (how === 0 && list.length) list.push(t.pick(list));
    if (how === 1) list.splice(t.int(list.length + 1), 0, t.pick(['i:nope', 'i:', 'a:', 'a:  ', 'x', '', 'I:a']));
    if (how === 2 && list.length) list.splice(t.int(list.length), 1);
    if (how === 3 && removed.length) list.push(`i:${t.pick(removed)}`); // listed and removed
    if (how === 4) removed.push(t.pick(['nope', '', ' a']));
    if (how === 5 && removed.length) removed.push(t.pick(removed));
    if (how === 6 && ids.length) removed.push(t.pick(ids));
    if (how === 7) list = [];
  }
  const posted = !bad(0.2);
  if (posted) list.forEach((v) => put('item', v));
  removed.forEach((id) => put('removed', id));
  const n = posted && list.length ? list.length : ids.filter((id) => !removed.includes(id)).length;
  if (allocate) {
    // null: no field, the authored share.
    let weights = Array.from({ length: n + (bad(0.1) ? 1 : 0) }, () => (t.chance(0.08) ? null
      : bad(0.2) ? t.pick(BAD_WEIGHTS) : t.chance(0.6) ? String(t.int(t.pick([2, 11, 101, 1001])))
        : t.chance(0.5) ? String(t.int(100000) / 100) : t.pick(WEIGHTS)));
    // What the page showed (`was.K`): nothing (a hand-made post); the weights as posted; as
    // posted but one; or, on the page as rendered, its own weights with one typed over, most
    // often raised past the total: the one weight a reader without JavaScript changed.
    let shown = null;
    const how = t.int(4);
    const asRendered = posted && list.length === ids.length && list.every((e, k) => e === `i:${ids[k]}`);
    if (how === 3 && asRendered && n) {
      const j = t.int(n);
      weights = b.shown.slice();
      shown = b.shown.slice();
      weights[j] = bad(0.2) ? t.pick(BAD_WEIGHTS) : t.chance(0.2) ? t.pick(WEIGHTS)
        : String(Number(b.shown[j]) + t.pick([1, 7, 0.5, 0.01, 0.005, b.model.total / 3, b.model.total, 1e14]));
    } else if (how >= 1) {
      shown = weights.map((w) => (w == null ? t.pick(WEIGHTS) : w));
      if (how >= 2 && shown.length) shown[t.int(shown.length)] = t.pick(WEIGHTS);
    }
    weights.forEach((w, k) => {
      if (w != null) put(`w.${k}`, w);
      if (shown && !bad(0.1)) put(`was.${k}`, bad(0.3) ? t.pick(BAD_WEIGHTS.concat(['', ' '])) : shown[k]);
    });
  } else {
    const mode = t.int(10);
    for (let k = 0; k < n && mode >= 3; k++) {
      if (mode < 5) put(`pos.${k}`, String(k + 1));
      else put(`pos.${k}`, bad(0.3) ? t.pick(POSITIONS) : String(t.chance(0.3) ? 1 + t.int(n + (bad(0.3) ? 1 : 0)) : k + 1));
    }
  }
  if (editing && t.chance(0.7)) {
    const at = () => t.int(n + (bad(0.3) ? 1 : 0));
    // An item listed and removed too, now and then removed again.
    const relisted = posted ? list.findIndex((e) => e.startsWith('i:') && removed.includes(e.slice(2))) : -1;
    const op = relisted >= 0 && t.chance(0.5) ? `remove:${relisted}` : bad(0.15) ? t.pick(NONSENSE) : t.pick([
      () => `up:${at()}`, () => `down:${at()}`, () => `remove:${at()}`, () => 'add',
      () => `restore:${removed.length && !bad(0.3) ? t.pick(removed) : t.pick([...ids, 'nope'])}`,
    ])();
    put('op', op);
    if (t.chance(0.05)) put('op', 'remove:0'); // only the first counts
  }
  if (t.chance(0.15)) put('add', t.chance(0.5) ? 'Docs' : typed(true));
  if (t.chance(0.3)) put('note', typed()); // with a note box or not
}

function mermaidState(c, b, put) {
  const { t, typed, bad } = c;
  if (t.chance(0.5)) put('comment', typed());
  for (const [part, count] of [['node', b.nodes], ['edge', b.edges]]) {
    for (let i = 0; i < count + 1; i++) if (t.chance(0.3)) put(`${part}.${i}`, typed());
    if (bad(0.1)) put(`${part}.${t.pick(['x', '-1', '01', ''])}`, typed());
  }
}

const LEAF_NUMBERS = ['0', '-1', '', ' 1', '+1', '01', 'x', '1.5', '99999999999999999999'];
const NOTE_NAMES = ['pb.note.x.text', 'pb.note.1', 'pb.note.1.other', 'pb.note..text', 'pb.note.1234567890.text', 'pb.note.1.text.x'];

/** Comments on the prose: the whole-document box, and the script's `pb.note.K` fields. */
function commentState(c, leaves, put) {
  const { t, typed, bad } = c;
  if (t.chance(0.5)) put('pb.comment', typed());
  for (let n = t.int(leaves.length ? 5 : 2); n > 0; n--) {
    const k = bad(0.1) ? t.pick(['01', '007', '999999999']) : String(t.int(12));
    const field = (name, value) => put(`pb.note.${k}.${name}`, value);
    const leaf = leaves.length && !bad(0.2) ? t.pick(leaves) : null;
    if (leaf) field('leaf', String(leaf.n));
    else if (t.chance(0.7)) field('leaf', bad(0.7) ? t.pick(LEAF_NUMBERS.concat([String(leaves.length + 1)])) : '');
    const text = leaf ? leaf.text : '';
    const cps = Array.from(text);
    const start = t.int(cps.length + 1);
    const excerpt = cps.slice(start, start + 1 + t.int(30)).join('');
    const quote = t.pick([
      () => null, () => null, () => excerpt, () => excerpt,
      () => text, () => `  ${excerpt.replace(/ /g, () => t.pick([' ', '\n', ' \t ', '  ']))}\n`,
      () => (bad(0.8) ? `${excerpt}§` : excerpt), () => (bad(0.8) ? t.pick(['nothing like it', '↩', 'A'.repeat(90)]) : ''),
      () => ' ',
    ])();
    if (quote != null) field('quote', quote);
    if (!t.chance(0.1)) field('text', typed());
    if (t.chance(0.1)) field('text', 'a second text is ignored');
  }
  if (bad(0.05)) put(t.pick(NOTE_NAMES), 'x');
}

/** A whole form state for the blocks of one document (`exact`: its edited pages are exact). */
function formState(t, blocks, exact, leaves = []) {
  const c = stateTools(t, exact && t.chance(0.3));
  const pairs = [];
  for (const b of blocks) {
    const put = (suffix, value) => pairs.push([`${b.id}.${suffix}`, value]);
    if (!b.model) {
      // A video or an invalid block: fields for it are ignored, an edit only asks for the page again.
      if (c.bad(0.2)) put(t.pick(['q0.pick', 'note', 'item']), '0');
      if (c.editing && t.chance(0.1)) put('op', 'up:0');
      continue;
    }
    if (b.kind === 'prioritize' || b.kind === 'allocate') listState(c, b, put);
    else if (b.kind === 'mermaid') mermaidState(c, b, put);
    else questionsState(c, b, put);
    if (c.editing && b.kind !== 'prioritize' && b.kind !== 'allocate' && t.chance(0.1)) put('op', t.pick(NONSENSE));
  }
  // Fields for blocks the document lacks, one or more: the first posted is named.
  for (let k = c.bad(0.1) ? 1 + t.int(3) : 0; k > 0; k--) {
    pairs.splice(t.int(pairs.length + 1), 0, [t.pick([`b${blocks.length + 1 + t.int(3)}.q0.pick`, 'b0.note', 'b01.item', `b${blocks.length + 7}.`]), '1']);
  }
  if (t.chance(0.1)) pairs.push([t.pick(['pb.op', 'x', 'b', 'bx.y', 'b1', '.b1']), 'export']);
  if (leaves.length ? t.chance(0.6) : t.chance(0.1)) commentState(c, leaves, (name, value) => pairs.push([name, value]));
  return t.chance(0.2) ? t.shuffle(pairs) : pairs;
}

// ---------------------------------------------------------------------------------------------
// The two exports

function post(path, body, type) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, {
      method: 'POST', agent,
      // JSON where the server offers it; HTML otherwise, whose answers page holds the export and
      // its notices exactly (a header cannot hold every notice).
      headers: { 'content-type': type, accept: 'application/json, text/html;q=0.9', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] || '', text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const unescape = (s) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);

/** The engine's answer to a form post: { markdown, notices }, { refused }, or { page } after an edit. */
async function engine(pairs) {
  const res = await post('/v1/answers', new URLSearchParams(pairs).toString(), 'application/x-www-form-urlencoded');
  if (res.status === 422) {
    return { refused: JSON.parse(res.text).detail.replace(/^The answers do not fit the document: /, '').replace(/\.$/, '') };
  }
  if (res.status !== 200) throw new Error(`the server answered ${res.status}: ${res.text}`);
  if (res.type.startsWith('application/json')) {
    const { markdown, notices } = JSON.parse(res.text);
    return { markdown, notices };
  }
  if (!res.type.startsWith('text/html')) throw new Error(`unexpected answer ${res.type}`);
  if (res.text.includes('<form class="pb-form"')) return { page: res.text };
  const notices = [...res.text.matchAll(/<p class="pb-notice" role="note">([\s\S]*?)<\/p>/g)].map((m) => unescape(m[1]));
  const m = /<textarea id="pb-export"[^>]*>([\s\S]*?)<\/textarea>/.exec(res.text);
  return { markdown: m ? unescape(m[1]) : '', notices };
}

/** What a browser would post for the form on `page` ("Get answers", no list edit). */
function pageFields(page) {
  const t = window.document.createElement('template');
  t.innerHTML = page;
  const pairs = [];
  for (const f of t.content.querySelector('form.pb-form').elements) {
    if (!f.name || f.disabled || /^(submit|button|reset|image|file)$/.test(f.type)) continue;
    if ((f.type === 'checkbox' || f.type === 'radio') && !f.checked) continue;
    if (f.tagName === 'SELECT') {
      for (const o of f.options) if (o.selected) pairs.push([f.name, o.value]);
    } else pairs.push([f.name, f.value]);
  }
  return pairs;
}

/** The script's export of `pairs` on the rendered `form`: { markdown, notices } or { refused }. */
function script(form, pairs) {
  try {
    const r = window.passback.exportFromPairs(form, pairs);
    return { markdown: r.markdown, notices: Array.from(r.notices) };
  } catch (e) {
    return e?.constructor?.name === 'AnswersError' ? { refused: e.message } : { crashed: String(e.stack || e) };
  }
}

const show = (r) => JSON.stringify(r, null, 1);
const fieldLines = (pairs) => pairs.map(([k, v]) => `  ${k}=${JSON.stringify(v)}`).join('\n');

/** Compares the two on one state: { outcome } when they agree, { diff } when not. */
async function compare(doc, pairs) {
  const fields = [['pb.source', doc.md], ['pb.surface', 'page'], ...pairs];
  const mine = script(doc.form, fields);
  const theirs = await engine(fields);
  if (!theirs.page) {
    if (show(mine) !== show(theirs)) return { diff: { mine, theirs } };
    return { outcome: 'refused' in mine ? 'refused' : 'exported' };
  }
  // A list edit: the export is that of the page it answered with.
  const again = pageFields(theirs.page);
  const next = await engine(again);
  if (!('markdown' in next)) return { diff: { mine, theirs: next, note: 'the engine does not export its own edited page' } };
  if (mine.markdown !== next.markdown) return { diff: { mine, theirs: next, note: 'after the edit' } };
  const replay = script(doc.form, again);
  if (show(replay) !== show(next)) return { diff: { mine: replay, theirs: next, note: 'the edited page’s own fields', pairs: again } };
  return { outcome: 'edited' };
}

async function pool(count, width, run) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await run(next++);
  }));
}

/** A document rendered by the server, in jsdom: its form and what the generator needs of it. */
async function rendered(md, exact = true) {
  const res = await post('/v1/render?format=fragment', md, 'text/markdown');
  assert.equal(res.status, 200, res.text);
  const box = window.document.createElement('div');
  box.innerHTML = res.text;
  const form = box.querySelector('form.pb-form');
  const blocks = [...form.querySelectorAll('[data-pb-block]')].map((el) => ({
    id: el.getAttribute('data-pb-block'),
    kind: el.getAttribute('data-pb-kind'),
    model: el.hasAttribute('data-pb-model') ? JSON.parse(el.getAttribute('data-pb-model')) : null,
    nodes: el.querySelectorAll('textarea[data-pb-node]').length,
    shown: [...el.querySelectorAll('input.pb-weight')].map((i) => i.value),
    edges: el.querySelectorAll('textarea[data-pb-edge]').length,
  }));
  return { md, form, blocks, exact, leaves: leavesOf(form) };
}

/**
 * The leaves of a rendered form and their text, read here as a person would select it (the
 * cells apart, the footnote's back-link left out), to draw quotes from: the script and the
 * engine each read their own.
 */
function leavesOf(form) {
  return [...form.querySelectorAll('[data-pb-leaf]')].map((el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('.footnote-backref').forEach((b) => b.remove());
    copy.querySelectorAll('td, th, br').forEach((c) => c.before(' '));
    const text = copy.textContent.replace(/[ \t\n\f\r]+/g, ' ').trim();
    return { n: Number(el.getAttribute('data-pb-leaf')), text };
  });
}

async function differential(kind, make) {
  const t = tools(streamSeed(kind));
  const docs = [];
  for (let i = 0; i < DOCS; i++) {
    const { md, exact } = make(t, i);
    const doc = await rendered(md, exact);
    assert.ok(doc.blocks.some((b) => b.model), `no valid component in\n${md}`);
    docs.push(doc);
  }
  // Every state is drawn before any is posted, so a replay draws the same ones.
  const states = Array.from({ length: STATES }, (_, k) => {
    const doc = docs[k % DOCS];
    return { doc, pairs: formState(t, doc.blocks, doc.exact, doc.leaves) };
  });
  const tally = { exported: 0, refused: 0, edited: 0 };
  const failures = [];
  await pool(states.length, 4, async (k) => {
    const { doc, pairs } = states[k];
    const { outcome, diff } = await compare(doc, pairs);
    if (diff) failures.push({ k, doc, pairs, diff });
    else tally[outcome] += 1;
  });
  console.log(`${kind}: ${states.length} states: ${tally.exported} exported, ${tally.refused} refused, ` +
    `${tally.edited} list edits; ${failures.length} differ`);
  if (failures.length) {
    const { k, doc, pairs, diff } = failures.sort((a, b) => a.k - b.k)[0];
    assert.fail(`${kind}: state ${k} of seed ${SEED} (PB_DIFF_SEED=${SEED}) differs` +
      ` (${failures.length} of ${states.length} do)${diff.note ? `, ${diff.note}` : ''}\n` +
      `document:\n${doc.md}\nfields:\n${fieldLines(diff.pairs || pairs)}\n` +
      `script:\n${show(diff.mine)}\nengine:\n${show(diff.theirs)}`);
  }
}

for (const kind of KINDS) {
  test(`differential: ${kind}`, () => differential(kind, (t, i) => component(kind, t, i)));
}
test('differential: documents mixing the kinds', () => differential('mixed', mixed));
test('differential: prose of every kind, commented on', () => differential('prose', prose));

test('differential: the answers fixtures posted as forms', async () => {
  const names = readdirSync(ANSWERS).filter((f) => f.endsWith('.form.txt')).map((f) => f.slice(0, -'.form.txt'.length));
  for (const name of names) {
    const doc = await rendered(readFileSync(join(ANSWERS, `${name}.md`), 'utf8'));
    const pairs = readFileSync(join(ANSWERS, `${name}.form.txt`), 'utf8').split('\n').filter((l) => l.trim())
      .map((l) => { const i = l.indexOf('='); return i < 0 ? [l, ''] : [l.slice(0, i), l.slice(i + 1)]; });
    const { diff } = await compare(doc, pairs);
    assert.equal(diff, undefined, `${name}${diff?.note ? `, ${diff.note}` : ''}\nscript:\n${show(diff?.mine)}\nengine:\n${show(diff?.theirs)}`);
  }
});
