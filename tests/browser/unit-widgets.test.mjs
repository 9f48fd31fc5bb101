// Unit tests of the enhancement script's widgets in jsdom (events, focus, live region, the form
// fields a plain submit would post). Layout-dependent behaviour (dragging) is tested in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, renderFragment, loadScript } from './unit-harness.mjs';
import { ANSWERS, fixture } from './people.mjs';

const doc = (name, options) => renderFragment(join(ANSWERS, `${name}.md`), options);
const text = (markdown, options) => renderFragment(null, { ...options, text: markdown });
const expected = (name) => fixture(name).expected;

function helpers(window) {
  const d = window.document;
  const byLabel = (name) => {
    const label = [...d.querySelectorAll('label')].find((l) => l.textContent === name);
    if (label) return d.getElementById(label.getAttribute('for'));
    return [...d.querySelectorAll('[aria-label]')].find((e) => e.getAttribute('aria-label') === name);
  };
  const fire = (el, type) => el.dispatchEvent(new window.Event(type, { bubbles: true }));
  const type = (el, value) => { el.focus(); el.value = value; fire(el, 'input'); };
  const key = (el, k, init = {}) => el.dispatchEvent(new window.KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
  const live = () => d.querySelector('.pb-live').textContent.trim();
  const exported = () => window.passback.exportAnswers(d.querySelector('.pb-doc')).markdown;
  const labels = (sel) => [...d.querySelectorAll(sel)].map((e) => e.textContent);
  const numbers = () => [...d.querySelectorAll('.pb-weight')].map((n) => Number(n.value));
  return { d, byLabel, fire, type, key, live, exported, labels, numbers };
}

test('choices: typing in the Other row chooses it; clearing undoes it; Clear answer clears and announces', async () => {
  const { window } = await loadScript(doc('single-other-default'));
  const { d, byLabel, type, live, exported } = helpers(window);
  const other = d.querySelector('input[value="other"]');
  const otherText = d.querySelector('.pb-other-text');
  const clear = d.querySelector('.pb-clear');
  assert.equal(clear.hidden, true, 'nothing to clear yet');
  type(otherText, 'Passkeys');
  assert.equal(other.checked, true, 'typing chose Other');
  assert.equal(clear.hidden, false);
  assert.equal(exported(), expected('single-other-default'));
  type(otherText, '');
  assert.equal(other.checked, false, 'emptying the text un-chooses the Other row it chose');
  byLabel('PIN').click();
  type(otherText, 'Passkeys');
  assert.equal(other.checked, true);
  assert.equal(byLabel('PIN').checked, false, 'a radio group has one choice');
  clear.click();
  assert.equal(other.checked, false);
  assert.equal(otherText.value, '');
  assert.equal(d.activeElement, byLabel('PIN'), 'focus goes to the first option');
  assert.equal(live(), 'Answer cleared.');
  assert.equal(exported(), '');
  window.close();
});

test('choices: a multi-choice Other row is chosen by typing, beside other picks', async () => {
  const { window } = await loadScript(doc('multi-several-and-other'));
  const { d, byLabel, type, exported } = helpers(window);
  const responses = fixture('multi-several-and-other').responses.b1;
  for (const label of responses.selected) byLabel(label).click();
  type(d.querySelector('.pb-other-text'), responses.other);
  assert.equal(d.querySelector('input[value="other"]').checked, true);
  assert.equal(exported(), expected('multi-several-and-other'));
  window.close();
});

test('notes: a note with text marks its toggle', async () => {
  const { window } = await loadScript(doc('single-note-only'));
  const { d, type } = helpers(window);
  const note = d.querySelector('.pb-note textarea');
  type(note, 'later');
  assert.ok(note.closest('details').classList.contains('pb-filled'));
  type(note, '  ');
  assert.ok(!note.closest('details').classList.contains('pb-filled'));
  window.close();
});

test('prioritize: ▲/▼ keep focus on the moved item, renumber the form and announce', async () => {
  const { window } = await loadScript(doc('prioritize-spec'));
  const { d, byLabel, key, live, labels } = helpers(window);
  const up = byLabel('Move APAC up');
  up.focus();
  up.click();
  assert.deepEqual(labels('.pb-rank-label'), ['EU', 'APAC', 'US']);
  assert.equal(d.activeElement, up, 'focus stays on the button');
  assert.equal(live(), 'APAC moved to position 2 of 3');
  up.click();
  assert.equal(up.getAttribute('aria-disabled'), 'true', 'at the top ▲ is off but keeps focus');
  assert.equal(d.activeElement, up);
  up.click();
  assert.deepEqual(labels('.pb-rank-label'), ['APAC', 'EU', 'US'], 'a disabled ▲ does nothing');
  // Alt+ArrowDown on any control of an item moves it down.
  byLabel('Remove EU').focus();
  key(byLabel('Remove EU'), 'ArrowDown', { altKey: true });
  assert.deepEqual(labels('.pb-rank-label'), ['APAC', 'US', 'EU']);
  assert.equal(d.activeElement, byLabel('Remove EU'));
  assert.equal(live(), 'EU moved to position 3 of 3');
  // The fields a plain submit posts: items in order, positions 1…n.
  const names = [...d.querySelectorAll('.pb-rank select')].map((s) => `${s.name}=${s.value}`);
  assert.deepEqual(names, ['b1.pos.0=1', 'b1.pos.1=2', 'b1.pos.2=3']);
  assert.deepEqual([...d.querySelectorAll('input[name="b1.item"]')].map((i) => i.value), ['i:apac', 'i:us', 'i:eu']);
  assert.equal(byLabel('Move APAC up').value, 'up:0');
  window.close();
});

test('prioritize: the position select moves the item', async () => {
  const { window } = await loadScript(doc('prioritize-spec'));
  const { d, byLabel, fire, labels, live } = helpers(window);
  const select = byLabel('Position of US');
  select.focus();
  select.value = '1';
  fire(select, 'change');
  assert.deepEqual(labels('.pb-rank-label'), ['US', 'EU', 'APAC']);
  assert.equal(d.activeElement, select);
  assert.equal(select.value, '1');
  assert.equal(live(), 'US moved to position 1 of 3');
  window.close();
});

test('prioritize: remove is reversible, add your own; the export is the engine\'s', async () => {
  const { window } = await loadScript(doc('prioritize-spec'));
  const { d, byLabel, type, key, live, labels, exported } = helpers(window);
  byLabel('Remove US').click();
  assert.deepEqual(labels('.pb-rank-label'), ['EU', 'APAC']);
  const undo = d.activeElement;
  assert.equal(undo.getAttribute('aria-label'), 'Undo removing US');
  assert.equal(undo.textContent, 'Undo');
  assert.equal(live(), 'US removed. Undo brings it back.');
  assert.deepEqual([...d.querySelectorAll('input[name="b1.removed"]')].map((i) => i.value), ['us']);
  undo.click();
  assert.deepEqual(labels('.pb-rank-label'), ['EU', 'US', 'APAC'], 'back where it was');
  assert.equal(d.activeElement, byLabel('Remove US'));
  assert.equal(live(), 'US restored at position 2 of 3');
  assert.equal(d.querySelectorAll('input[name="b1.removed"]').length, 0);
  assert.equal(d.querySelector('.pb-removed').hidden, true);
  // The spec's example: remove APAC, add Localization staffing, order US, it, EU.
  byLabel('Remove APAC').click();
  const add = byLabel('Add an item of your own');
  type(add, '  Localization staffing ');
  key(add, 'Enter');
  assert.equal(add.value, '');
  assert.equal(d.activeElement, add, 'focus stays in the add box');
  assert.equal(live(), 'Localization staffing added at position 3 of 3');
  const added = byLabel('Move Localization staffing up');
  assert.ok(added, 'the added item has the same controls');
  assert.equal(byLabel('Position of Localization staffing').name, 'b1.pos.2');
  byLabel('Move EU down').click();
  byLabel('Move EU down').click();
  type(byLabel('Anything blocking this order?'), 'APAC is off until localization is staffed.');
  assert.equal(exported(), expected('prioritize-spec'));
  window.close();
});

test('prioritize: an item removed without JavaScript comes back with the server\'s Restore button', async () => {
  // The form as the server draws it after a no-JavaScript "Remove APAC" (render_with_answers).
  const html = doc('prioritize-spec')
    .replace(/<li class="pb-rank-item" data-pb-item="apac">.*?<\/li>/, '')
    .replace('<div class="pb-add">', '<div class="pb-removed"><p>Removed:</p><ul><li><input type="hidden" name="b1.removed" value="apac"><span>APAC</span> <button type="submit" name="b1.op" value="restore:apac" aria-label="Restore APAC">Restore</button></li></ul></div><div class="pb-add">');
  const { window } = await loadScript(html);
  const { d, byLabel, labels, exported, live } = helpers(window);
  assert.equal(byLabel('Position of US').options.length, 2, 'renumbered for two items');
  byLabel('Restore APAC').click();
  assert.deepEqual(labels('.pb-rank-label'), ['EU', 'US', 'APAC']);
  assert.ok(byLabel('Move APAC up'), 'rebuilt from the model with its controls');
  assert.equal(d.activeElement, byLabel('Remove APAC'));
  assert.equal(live(), 'APAC restored at position 3 of 3');
  assert.equal(d.querySelectorAll('input[name="b1.removed"]').length, 0);
  byLabel('Remove EU').click();
  assert.match(exported(), /1\. US — highest revenue per seat\n2\. APAC — needs localization first\n\nRemoved by reader: EU/);
  window.close();
});

test('allocate: sliders spend the remainder first, then take from the others in proportion', async () => {
  const { window } = await loadScript(doc('allocate-spec'));
  const { d, byLabel, fire, live, numbers } = helpers(window);
  const ranges = [...d.querySelectorAll('.pb-range')];
  assert.equal(ranges.length, 5);
  assert.equal(ranges[0].getAttribute('aria-labelledby'), d.querySelector('label[for="' + byLabel('Product — new features (%)').id + '"]').id);
  // Lowering Product to 25 leaves 10 unallocated; nothing else moves.
  ranges[0].focus();
  fire(ranges[0], 'focusin');
  ranges[0].value = '25';
  fire(ranges[0], 'input');
  assert.deepEqual(numbers(), [25, 25, 15, 15, 10]);
  assert.equal(ranges[1].getAttribute('aria-valuetext'), '25%, 10% unallocated');
  assert.match(d.querySelector('.pb-total').textContent, /10% unallocated/);
  // Back up to 35 from the same gesture: exactly where it started.
  ranges[0].value = '35';
  fire(ranges[0], 'input');
  assert.deepEqual(numbers(), [35, 25, 15, 15, 10]);
  // Up to 45: the others give 10 in proportion to 25:15:15:10.
  ranges[0].value = '45';
  fire(ranges[0], 'input');
  assert.deepEqual(numbers(), [45, 21, 13, 13, 8]);
  assert.equal(numbers().reduce((a, b) => a + b), 100);
  fire(ranges[0], 'change');
  assert.equal(live(), 'Product — new features: 45%');
  // A typed weight is applied the same way when it is committed.
  const growth = byLabel('Growth & GTM (%)');
  growth.focus();
  growth.value = '11';
  fire(growth, 'change');
  assert.deepEqual(numbers(), [45, 11, 13, 13, 8]);
  assert.equal(live(), 'Growth & GTM: 11%, 10% unallocated');
  growth.value = '-5';
  fire(growth, 'change');
  assert.equal(growth.value, '11', 'text that is not a weight is undone');
  window.close();
});

test('allocate: Undo right after a remove puts every weight back, an unallocated remainder too', async () => {
  const { window } = await loadScript(doc('allocate-spec'));
  const { d, byLabel, fire, numbers } = helpers(window);
  const range = d.querySelector('.pb-range');
  range.focus();
  fire(range, 'focusin');
  range.value = '25';
  fire(range, 'input');
  fire(range, 'change');
  assert.deepEqual(numbers(), [25, 25, 15, 15, 10]);
  byLabel('Remove Product — new features').click();
  d.activeElement.click();
  assert.deepEqual(numbers(), [25, 25, 15, 15, 10], 'exactly as before the remove');
  assert.match(d.querySelector('.pb-total').textContent, /10% unallocated/);
  window.close();
});

test('allocate: remove hands the share to the rest in proportion, Undo takes it back, add enters at 0', async () => {
  const { window } = await loadScript(doc('allocate-spec'));
  const { d, byLabel, type, key, fire, live, exported, numbers } = helpers(window);
  byLabel('Remove Hiring').click();
  assert.deepEqual(numbers(), [39, 28, 17, 16], '35:25:15:15 scaled up to 100');
  assert.equal(live(), 'Hiring removed; its share went to the others in proportion. Undo brings it back.');
  assert.deepEqual([...d.querySelectorAll('.pb-weight')].map((n) => n.name), ['b2.w.0', 'b2.w.1', 'b2.w.2', 'b2.w.3'].map((n) => n.replace('b2', 'b1')));
  d.activeElement.click();
  assert.deepEqual(numbers(), [35, 25, 15, 15, 10], 'Undo is exact here');
  assert.equal(live(), 'Hiring restored at position 5 of 5');
  byLabel('Remove Hiring').click();
  const add = byLabel('Add a category of your own');
  type(add, 'Security review');
  key(add, 'Enter');
  assert.equal(live(), 'Security review added at 0%');
  assert.deepEqual(numbers(), [39, 28, 17, 16, 0]);
  // Type the spec's split: lower first, then raise from the remainder.
  for (const [label, value] of [['Product — new features', 30], ['Growth & GTM', 20], ['Customer support', 15], ['Infra & reliability', 25], ['Security review', 10]]) {
    const input = byLabel(`${label} (%)`);
    input.focus();
    input.value = String(value);
    fire(input, 'change');
  }
  assert.deepEqual(numbers(), [30, 20, 25, 15, 10]);
  type(byLabel('Anything blocking this split?'), "security can't slip again; hiring waits a quarter.");
  assert.equal(exported(), expected('allocate-spec'));
  window.close();
});

test('allocate: a fractional total moves in hundredths', async () => {
  const { window } = await loadScript(doc('allocate-fractional-total'));
  const { d, fire } = helpers(window);
  const range = d.querySelector('.pb-range');
  assert.equal(range.step, '0.01');
  assert.equal(range.max, '2.5');
  range.value = '1.5';
  fire(range, 'input');
  assert.deepEqual([...d.querySelectorAll('.pb-weight')].map((n) => n.value), ['1.5', '0.5', '0.5']);
  window.close();
});

test('youtube: nothing on the page surface; on routed a play button injects the nocookie player', async () => {
  const src = readFileSync(join(ROOT, 'fixtures', 'golden', 'youtube.md'), 'utf8');
  let { window } = await loadScript(text(src));
  assert.equal(window.document.querySelector('.pb-yt-play'), null);
  assert.equal(window.document.querySelector('iframe'), null);
  window.close();
  ({ window } = await loadScript(text(src, { surface: 'routed' })));
  const d = window.document;
  const play = d.querySelector('.pb-yt-play');
  assert.equal(play.textContent, '▶Play: Check-in kiosk prototype — the two-minute walkthrough (YouTube)');
  assert.equal(d.querySelector('iframe'), null, 'nothing loads before the click');
  play.click();
  const frame = d.querySelector('iframe');
  assert.match(frame.src, /^https:\/\/www\.youtube-nocookie\.com\/embed\/aB3_x-9Kq0Z\?autoplay=1$/);
  assert.equal(frame.title, 'Check-in kiosk prototype — the two-minute walkthrough');
  assert.equal(d.activeElement, frame);
  window.close();
});

test('mermaid: a node or edge of the drawn diagram opens its comment field', async () => {
  const { window } = await loadScript(doc('mermaid-spec'), {
    before(w) {
      // A diagram's SVG as the engine draws it: groups keyed `data-node` and `data-edge`.
      const figure = w.document.querySelector('.pb-diagram');
      figure.querySelector('svg')?.remove();
      figure.insertAdjacentHTML('afterbegin', '<svg role="img" aria-label="The review loop"><g data-node="A"><rect width="10" height="10"/></g><g data-edge="A→B"><path d="M0 0L9 9"/></g><rect class="bg" width="50" height="50"/></svg>');
    },
  });
  const { d, type, key, exported } = helpers(window);
  const node = d.querySelector('g[data-node="A"]');
  assert.equal(node.getAttribute('role'), 'button');
  assert.equal(node.getAttribute('tabindex'), '0');
  assert.equal(node.getAttribute('aria-label'), 'Comment on box “Paste”');
  node.dispatchEvent(new window.MouseEvent('click', { bubbles: true }));
  const field = d.querySelector('textarea[data-pb-node="A"]');
  assert.equal(d.activeElement, field);
  assert.ok(field.closest('details').open);
  type(field, 'this box should be "Draft", not "Paste"');
  assert.ok(node.classList.contains('pb-commented'));
  const edge = d.querySelector('g[data-edge="A→B"]');
  edge.focus();
  key(edge, 'Enter');
  type(d.activeElement, 'make this arrow dashed');
  d.querySelector('svg .bg').dispatchEvent(new window.MouseEvent('click', { bubbles: true }));
  assert.equal(d.activeElement.name, 'b1.comment', 'the diagram itself opens the whole-diagram comment');
  type(d.activeElement, 'this reads top-down but should be a loop');
  assert.equal(exported(), expected('mermaid-spec'));
  window.close();
});

test('copy answers: the export to the clipboard with a visible confirmation, Ctrl/Cmd-Enter too', async () => {
  let copied = null;
  const { window } = await loadScript(doc('single-plain'), {
    before(w) {
      Object.defineProperty(w.navigator, 'clipboard', { value: { writeText: (t) => { copied = t; return Promise.resolve(); } } });
    },
  });
  const { d, byLabel, key } = helpers(window);
  const button = [...d.querySelectorAll('button')].find((b) => b.textContent === 'Copy answers');
  const status = d.querySelector('.pb-copy-status');
  button.click();
  assert.equal(status.textContent, 'Nothing is answered yet.');
  assert.equal(copied, null);
  const responses = fixture('single-plain').responses.b1;
  byLabel(responses.selected[0]).click();
  button.click();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(copied, expected('single-plain'));
  assert.equal(status.textContent, 'Answers copied to the clipboard.');
  assert.equal(d.querySelector('.pb-copied textarea').value, copied);
  assert.equal(d.querySelector('.pb-copied').hidden, false);
  copied = null;
  key(byLabel(responses.selected[0]), 'Enter', { metaKey: true });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(copied, expected('single-plain'), 'Cmd-Enter');
  copied = null;
  key(d.body, 'Enter', { ctrlKey: true });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(copied, expected('single-plain'), 'Ctrl-Enter with focus outside the only document');
  window.close();
});

test('copy answers: a clipboard that refuses falls back to selecting the text', async () => {
  const { window } = await loadScript(doc('single-plain'), {
    before(w) {
      Object.defineProperty(w.navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) } });
      w.document.execCommand = () => false;
    },
  });
  const { d, byLabel } = helpers(window);
  byLabel('PIN').click();
  d.querySelector('.pb-copy').click();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(d.querySelector('.pb-copy-status').textContent, 'Could not copy automatically: select the text below and copy it.');
  assert.ok(d.querySelector('.pb-copied').open);
  window.close();
});

test('strings follow the document language', async () => {
  const { window } = await loadScript(doc('hebrew-other-label'));
  const d = window.document;
  assert.equal(d.querySelector('.pb-copy').textContent, 'העתקת התשובות');
  assert.equal(d.querySelector('.pb-clear').textContent, 'ניקוי התשובה');
  window.close();
});

test('a form without an action (no server): only Copy answers is offered', async () => {
  const { window } = await loadScript(doc('single-plain').replace(/ action="[^"]*"/, ''));
  const visible = [...window.document.querySelectorAll('.pb-actions button')].filter((b) => !b.hidden).map((b) => b.textContent);
  assert.deepEqual(visible, ['Copy answers']);
  window.close();
});

test('Enter in a text field does not leave the page through the hidden default button', async () => {
  const { window } = await loadScript(doc('single-plain'));
  const d = window.document;
  const form = d.querySelector('form');
  let submitted = 0;
  form.addEventListener('submit', (e) => { if (!e.defaultPrevented) submitted++; e.preventDefault(); });
  form.requestSubmit(d.querySelector('button[hidden]'));
  assert.equal(submitted, 0);
  form.requestSubmit([...d.querySelectorAll('button')].find((b) => b.textContent === 'Get answers' && !b.hidden));
  assert.equal(submitted, 1);
  window.close();
});

test('comments: a Comment button per leaf; a comment is fields after its leaf, numbered past those the page carried', async () => {
  const md = '# Title\n\nA paragraph.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
  const { window } = await loadScript(text(md), {
    // A page shown again after a list edit carries a comment as hidden fields.
    before: (w) => {
      const form = w.document.querySelector('form.pb-form');
      const carried = w.document.createElement('input');
      Object.assign(carried, { type: 'hidden', name: 'pb.note.4.text', value: 'carried' });
      form.appendChild(carried);
    },
  });
  const { d, byLabel, type, key, live, exported } = helpers(window);
  assert.equal(d.querySelectorAll('.pb-leaf-comment').length, d.querySelectorAll('[data-pb-leaf]').length);
  assert.equal(d.querySelector('tr[data-pb-leaf="6"] td:last-child .pb-leaf-comment') !== null, true, 'a row’s button is in its last cell');
  byLabel('Comment on “A paragraph.”').click();
  const area = d.activeElement;
  assert.equal(area.name, 'pb.note.5.text', 'numbered after the carried pb.note.4');
  assert.equal(d.querySelector('[name="pb.note.5.leaf"]').value, '2');
  assert.equal(area.closest('.pb-leaf-note').previousElementSibling.classList.contains('pb-leaf-comment'), true);
  type(area, 'first\nthought');
  assert.equal(exported(), '## Comments on the text\n\n- On "A paragraph." — first thought\n- On the whole document — carried\n');
  assert.equal(d.querySelector('[data-pb-leaf="2"]').classList.contains('pb-commented'), true);
  // Escape leaves a comment with text in place; the ✕ takes it back and says so.
  key(area, 'Escape');
  assert.equal(d.activeElement.classList.contains('pb-leaf-comment'), true);
  byLabel('Remove the comment on “A paragraph.”').click();
  assert.equal(d.querySelector('.pb-leaf-note'), null);
  assert.equal(live(), 'Comment removed.');
  assert.equal(d.querySelector('[data-pb-leaf="2"]').classList.contains('pb-commented'), false);
  // The leaf's text leaves the buttons out: a row comments as its cells read.
  byLabel('Comment on “1 2”').click();
  assert.equal(d.activeElement.closest('.pb-leaf-note').previousElementSibling.tagName, 'TABLE');
  window.close();
});
