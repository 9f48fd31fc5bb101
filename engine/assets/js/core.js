// ---------------------------------------------------------------------------------------------
// The core: the components' registry and the helpers every file shares.

/**
 * The components by tag. Each component's own file registers its tag once, with its parts:
 *
 * - `decode(b, later)`: the block's answer from the form's fields, as the component's
 *   `answer_from_form` makes it. `b` holds the block's id, model, field lookup (`values`), list
 *   edit (`op`) and section; `later` takes the decode's notices, which the engine puts after the
 *   export's.
 * - `export(b, answer, notices)`: the block's part of the export, as the component's `export`
 *   writes it (nothing when unanswered); `notices` takes the export's notices.
 * - `enhance(block, ui)`: what the script adds to the rendered block.
 *
 * A component that takes answers (its block carries a `data-pb-model`) has `decode` and
 * `export`; one that only gets enhanced, `enhance` alone.
 */
var COMPONENTS = {};

function register(tag, parts) {
  COMPONENTS[tag] = parts;
}

/** A block's registered parts, by its `data-pb-kind`; null for a kind the script does not know. */
function componentOf(block) {
  var kind = block.getAttribute('data-pb-kind');
  return Object.prototype.hasOwnProperty.call(COMPONENTS, kind) ? COMPONENTS[kind] : null;
}

/** The chrome strings for a document's language (`lang`), English for any other. */
function stringsFor(lang) {
  return STRINGS[lang] || STRINGS.en;
}

/** Fills each `{}` of a template in turn (values are never searched for `{}` themselves). */
function fill(template) {
  var parts = template.split('{}');
  var out = parts[0];
  for (var i = 1; i < parts.length; i++) out += String(arguments[i]) + parts[i];
  return out;
}

// ---------------------------------------------------------------------------------------------
// The export's shared pieces: engine/src/answers.rs, decoding the form's fields and exporting,
// line for line. The engine is the reference: the same Markdown, the same notices, and an
// AnswersError with the engine's words wherever its server answers 422.

/** Rust's `str::trim` (Unicode White_Space), which is not JavaScript's `trim`. */
var WS = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+';
var TRIM = new RegExp('^' + WS + '|' + WS + '$', 'g');
function rtrim(s) { return s.replace(TRIM, ''); }

/** `clean_text`: blank is absent; CRLF becomes LF. */
function cleanText(s) {
  if (s == null) return null;
  var text = rtrim(String(s));
  return text ? text.split('\r\n').join('\n') : null;
}

/**
 * `AnswersError`'s Display: `b1 q0.pick: …`, `pb.note.2.quote: …`, or the message alone. A
 * field that shows its own error says `sentence`: the same words, without the field's name.
 */
function AnswersError(block, field, message) {
  var where = block ? block + (field ? ' ' + field : '') : field;
  this.message = (where ? where + ': ' : '') + message;
  this.sentence = message.charAt(0).toUpperCase() + message.slice(1) + '.';
}

/**
 * A reviewer's text as the export carries it (engine/src/components/reviewer.rs, `text`): cut at
 * every line break, blank lines dropped, each line escaped by `reviewerLine` and every line after
 * the first indented by four spaces under its entry.
 */
var BREAK = /[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
function reviewerText(s) {
  return String(s).split(BREAK).filter(function (l) { return rtrim(l); }).map(function (l, i) {
    // The first line follows its entry's prefix: leading whitespace there could start a code block.
    return reviewerLine(i === 0 ? l.replace(LEAD, '') : l);
  }).join('\n    ');
}

/** `one_line`: each line break a space, then escaped as one line. */
function reviewerOneLine(s) {
  return reviewerLine(String(s).replace(new RegExp(BREAK.source, 'g'), ' ').replace(LEAD, ''));
}

/**
 * `push_line`: leading whitespace kept; a backslash before a marker that would start a Markdown
 * block or one of the export's entries, and `&lt;` for each `<` that could open HTML.
 */
var LEAD = new RegExp('^' + WS);
function reviewerLine(line) {
  var lead = (LEAD.exec(line) || [''])[0];
  var body = line.slice(lead.length);
  var m;
  if ((m = /^\*+/.exec(body))) body = m[0].replace(/\*/g, '\\*') + body.slice(m[0].length);
  else if (/^(#|>|[-+]([ \t]|$)|```|~~~|\[.*\]:|[-_=:|][-_=:| \t]*$|Answers?:|Answers \u2192|Note:)/.test(body)) body = '\\' + body;
  else if ((m = /^[0-9]{1,9}(?=[.)]([ \t]|$))/.exec(body))) body = m[0] + '\\' + body.slice(m[0].length);
  return lead + body.replace(/<(?=[A-Za-z\/!?])/g, '&lt;');
}

/** The verdict's form field on a routed page (server/src/http/review). */
var VERDICT_FIELD = 'pb.verdict';

/**
 * `with_verdict_line` (server/src/routing/recipients.rs): the export ending with
 * `Verdict: {label}` after one blank line when a verdict was chosen (a blank label is none). The
 * label is cleaned as `clean_name` does (controls a space, bidi controls dropped, spaces run
 * together, trimmed at the end), on one line with each `<` written `&lt;`.
 */
var TRIM_END = new RegExp(WS + '$');
function withVerdictLine(markdown, label) {
  if (!label) return markdown;
  var name = '';
  label = String(label);
  for (var i = 0; i < label.length; i++) {
    // Every character these tests look at is one UTF-16 unit; a surrogate is kept as it is.
    var c = label.charAt(i);
    if (/[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(c)) c = ' ';
    if (/^[\u200e\u200f\u202a-\u202e\u2066-\u2069]$/.test(c)) continue;
    if (c === ' ' && (!name || name.charAt(name.length - 1) === ' ')) continue;
    name += c;
  }
  var out = markdown.replace(TRIM_END, '');
  return (out ? out + '\n\n' : '') + 'Verdict: ' + name.replace(TRIM_END, '').split('<').join('&lt;') + '\n';
}

/** Rust's `usize::from_str`. */
function parseIndex(v) {
  return /^\+?[0-9]+$/.test(v) ? parseInt(v, 10) : NaN;
}

// ---------------------------------------------------------------------------------------------
// Small DOM helpers

function el(tag, attrs, text) {
  var e = document.createElement(tag);
  for (var k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
  if (text != null) e.textContent = text;
  return e;
}
function $(root, selector) { return root.querySelector(selector); }
function $$(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
function closest(node, selector) {
  for (; node && node.nodeType === 1; node = node.parentNode) if (node.matches(selector)) return node;
  return null;
}
function focus(node) { if (node) node.focus(); }

var uid = 0;
/** A new element id that starts like the block's own ids. */
function newId(section) {
  var any = $(section, '[id]');
  var base = any ? any.id.replace(/-[^-]*$/, '') : 'pb';
  return base + '-js' + (++uid);
}

/** Marks a note's disclosure as filled while its box holds text. */
function noteMark(textarea) {
  var details = closest(textarea, 'details');
  if (details) details.classList.toggle('pb-filled', !!rtrim(textarea.value));
}
