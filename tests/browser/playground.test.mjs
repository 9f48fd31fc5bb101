// The playground (`GET /`) in real Chromium against the real server: the preview follows the
// editor, an example filled in the preview copies the engine's export, a problem takes the caret
// to its place, a share link round-trips a document the server never receives, and without
// JavaScript the form post does the same work. Audited with axe with the script on (light and
// dark) and with scripts blocked; no sideways scrolling at 320 px; screenshots at 1280 and
// 375 px go to $CARGO_TARGET_DIR/screenshots/playground/.
//
// The browser reaches the server through a TCP relay that keeps every byte it sends, so a test
// can show what the server received.
import { test, before, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, axeViolations, watchConsole, isForeign, sticksOut } from './harness.mjs';

const DECISION = readFileSync(join(ROOT, 'examples', 'decision.md'), 'utf8');
const EXAMPLES = join(ROOT, 'server', 'playground', 'examples');
const CHOICE = [
  '# Sign-in',
  '',
  'We need one way in for the guests.',
  '',
  '```single-choice',
  '{ "version": "1", "question": "Which auth method?", "options": ["PIN", "Magic link"], "recommended": "Magic link" }',
  '```',
  '',
  'Tail',
].join('\n');
// Line 9 is missing an option (an error); line 13 lists "Other" (a warning), after an emoji that
// is one character to the engine and two UTF-16 units to the text area.
const BROKEN = [
  '# Two questions',
  '',
  '```single-choice',
  '{ "version": "1", "question": "Which auth method?", "options": ["PIN", "Magic link"] }',
  '```',
  '',
  'And one that is not right yet:',
  '',
  '```single-choice',
  '{ "version": "1", "question": "Which room?", "options": ["Blue"] }',
  '```',
  '',
  '```multi-choice',
  '{ "version": "1", "question": "Snacks 🍪?", "options": ["Fruit", "Nuts", "Other"] }',
  '```',
  '',
].join('\n');

let server;
let relay;
let url;
let js;
const sent = [];

before(async () => {
  server = await startServer();
  const upstream = new URL(server.url);
  relay = createServer((client) => {
    const up = connect(Number(upstream.port), upstream.hostname);
    client.on('data', (chunk) => sent.push(Buffer.from(chunk)));
    client.pipe(up);
    up.pipe(client);
    client.on('error', () => up.destroy());
    up.on('error', () => client.destroy());
  });
  await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${relay.address().port}`;
  js = await browser();
  await js.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  mkdirSync(join(SHOTS, 'playground'), { recursive: true });
});
after(async () => {
  await js?.close();
  relay?.close();
  server?.stop();
});

// Each test starts without a kept draft: the draft lives in the origin's localStorage, which the
// tests' one browser context shares.
beforeEach(async () => {
  const page = await js.newPage();
  await page.goto(`${url}/healthz`);
  await page.evaluate(() => localStorage.clear());
  await page.close();
});

/** Everything the browser has sent the server so far, as text. */
const received = () => Buffer.concat(sent).toString('latin1');

const editorOf = (page) => page.getByRole('textbox', { name: 'Document', exact: true });
const previewOf = (page) => page.locator('#pbp-preview');
const statusSays = (page, text) => page.locator('#pbp-status').filter({ hasText: text }).waitFor();

/** The engine's export of `responses` for `markdown`, by the JSON path. */
async function engineExport(markdown, responses) {
  const res = await fetch(`${server.url}/v1/answers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ markdown, responses }),
  });
  assert.equal(res.status, 200);
  return res.text();
}

/** Presses the preview's "Copy answers" and returns what reached the clipboard. */
async function copyAnswers(page, label = 'Copy answers') {
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await previewOf(page).getByRole('button', { name: label, exact: true }).click();
  await previewOf(page).locator('.pb-copy-status').filter({ hasText: /\S/ }).waitFor();
  return page.evaluate(() => navigator.clipboard.readText());
}

/** The caret's 1-based line and column, counting characters as the engine does. */
function caret(page) {
  return page.evaluate(() => {
    const t = document.getElementById('pbp-doc');
    const before = t.value.slice(0, t.selectionStart).split('\n');
    return { focused: document.activeElement === t, line: before.length, column: Array.from(before.at(-1)).length + 1 };
  });
}

test('typing renders the document beside the editor, with the status line and the problems', async () => {
  const page = await js.newPage();
  const problems = watchConsole(page);
  const foreign = [];
  page.on('request', (r) => { if (isForeign({ url }, r.url())) foreign.push(r.url()); });
  await page.goto(`${url}/`);
  await statusSays(page, 'No document yet.');
  const editor = editorOf(page);
  await editor.fill(CHOICE);
  await previewOf(page).getByRole('group', { name: 'Which auth method?' }).waitFor();
  await statusSays(page, 'Valid · 1 component');
  // Keystrokes, not a paste: the preview follows once the typing pauses.
  await editor.press('End');
  await editor.pressSequentially(' end');
  await previewOf(page).getByText('Tail end', { exact: true }).waitFor();
  await editor.fill(CHOICE.replace('"version": "1"', '"version": "2"'));
  await statusSays(page, 'Violating · 1 component · 1 error');
  assert.equal(await page.locator('#pbp-diagnostics button.pbp-diag').count(), 1);
  await previewOf(page).locator('pre.pb-invalid').waitFor();
  await editor.fill('');
  await statusSays(page, 'No document yet.');
  assert.ok(await page.locator('#pbp-diagnostics').isHidden());
  assert.deepEqual(problems, [], 'CSP violations or script errors');
  assert.deepEqual(foreign, [], 'requests to other origins');
  await page.close();
});

test('an example in one click: filled in the preview, Copy answers gives the engine export', async () => {
  const page = await js.newPage();
  const problems = watchConsole(page);
  await page.goto(`${url}/`);
  await page.getByRole('link', { name: 'Every component' }).click();
  await statusSays(page, 'Valid · 8 components');
  assert.equal(await editorOf(page).inputValue(), DECISION);
  assert.equal(new URL(page.url()).search, '?example=decision');
  assert.equal(await page.getByRole('link', { name: 'Every component' }).getAttribute('aria-current'), 'page');
  const preview = previewOf(page);
  // The preview answers by "Copy answers"; nothing in it leaves the playground.
  assert.equal(await preview.getByRole('button', { name: 'Get answers' }).count(), 0);
  await preview.getByRole('radio', { name: 'Self-hosted' }).check();
  await preview.getByRole('checkbox', { name: 'Runbooks' }).check();
  await preview.getByRole('checkbox', { name: 'Design notes' }).check();
  await preview.getByRole('textbox', { name: 'Which week suits the cut-over?' }).fill('the week of 14 September');
  await preview.getByRole('button', { name: 'Move Fix internal links up' }).click();
  const copied = await copyAnswers(page);
  assert.equal(copied, await engineExport(DECISION, {
    b1: { selected: ['Self-hosted'] },
    b2: { selected: ['Runbooks', 'Design notes'] },
    b3: { text: 'the week of 14 September' },
    b5: { order: ['links', 'export', 'perms', 'train'] },
  }));
  assert.match(copied, /Answer: Self-hosted/);

  // The Hebrew example: right to left, with Hebrew chrome.
  await page.getByRole('link', { name: 'עברית (Hebrew)' }).click();
  await statusSays(page, 'Valid · 3 components');
  const hebrew = readFileSync(join(EXAMPLES, 'hebrew.md'), 'utf8');
  assert.equal(await editorOf(page).inputValue(), hebrew);
  assert.equal(await preview.locator('.pb-doc').getAttribute('dir'), 'rtl');
  await preview.getByRole('radio', { name: 'יום רביעי' }).check();
  assert.equal(await copyAnswers(page, 'העתקת התשובות'), await engineExport(hebrew, { b1: { selected: ['יום רביעי'] } }));
  assert.deepEqual(problems, [], 'CSP violations or script errors');
  await page.close();
});

test('an example loaded over your own text: the editor’s Undo brings your text back', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  await editorOf(page).fill(CHOICE);
  await statusSays(page, 'Valid · 1 component');
  await page.getByRole('link', { name: 'Mermaid' }).click();
  await page.locator('#pbp-share-status').filter({ hasText: 'Undo in the editor' }).waitFor();
  await previewOf(page).locator('[data-pb-kind="mermaid"]').waitFor();
  await editorOf(page).focus();
  await page.keyboard.press('ControlOrMeta+z');
  assert.equal(await editorOf(page).inputValue(), CHOICE);
  await previewOf(page).getByRole('group', { name: 'Which auth method?' }).waitFor();
  await page.close();
});

test('a draft survives a reload in the same browser, and clearing the editor forgets it', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  const editor = editorOf(page);
  await editor.fill(CHOICE);
  await statusSays(page, 'Valid · 1 component');
  await page.reload();
  assert.equal(await editor.inputValue(), CHOICE);
  await page.locator('#pbp-share-status').filter({ hasText: 'Your draft from this browser is back' }).waitFor();
  await statusSays(page, 'Valid · 1 component');
  // An example's own page shows the example, not the draft.
  await page.goto(`${url}/?example=decision`);
  assert.notEqual(await editor.inputValue(), CHOICE);
  await page.goto(`${url}/`);
  assert.equal(await editor.inputValue(), CHOICE);
  await editor.fill('');
  await statusSays(page, 'No document yet.');
  await page.reload();
  assert.equal(await editor.inputValue(), '');
  await page.close();
});

test('an invalid block in the preview says why, and its place is one click away', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  await editorOf(page).fill(BROKEN);
  const why = previewOf(page).locator('pre.pb-invalid + .pbp-invalid-why');
  await why.waitFor();
  assert.match(await why.innerText(), /single-choice block is not valid/);
  assert.equal(await why.locator('li').count(), 1);
  await why.getByRole('button', { name: /^line 10, column/ }).click();
  const at = await caret(page);
  assert.equal(at.focused, true);
  assert.equal(at.line, 10);
  assert.deepEqual(await axeViolations(page), []);
  await page.close();
});

test('choosing a problem, by click or by Enter, puts the caret at its line and column', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  // Sixty lines of prose first, so the problems sit below the text area's first screen.
  const prose = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of the notes.`).join('\n');
  const doc = `${prose}\n\n${BROKEN}`;
  await editorOf(page).fill(doc);
  await statusSays(page, 'Violating · 3 components · 1 error · 1 warning');
  const validation = await (await fetch(`${server.url}/v1/validate`, { method: 'POST', body: doc })).json();
  const [error, warning] = validation.diagnostics;
  assert.deepEqual([error.line, warning.line], [71, 75]);
  const buttons = page.locator('#pbp-diagnostics button.pbp-diag');
  assert.equal(await buttons.count(), 2);
  assert.match(await buttons.nth(0).textContent(), new RegExp(`^error\\s*line 71, column ${error.column}71:${error.column}`));

  await buttons.nth(0).click();
  assert.deepEqual(await caret(page), { focused: true, line: error.line, column: error.column });
  // The caret's line is on screen inside the text area.
  const seen = await page.evaluate((line) => {
    const t = document.getElementById('pbp-doc');
    const style = getComputedStyle(t);
    const top = parseFloat(style.paddingTop) + (line - 1) * parseFloat(style.lineHeight);
    return top >= t.scrollTop && top + parseFloat(style.lineHeight) <= t.scrollTop + t.clientHeight;
  }, error.line);
  assert.ok(seen, 'the problem line is scrolled into view');

  await buttons.nth(1).focus();
  await page.keyboard.press('Enter');
  assert.deepEqual(await caret(page), { focused: true, line: warning.line, column: warning.column });
  await page.close();
});

/** Where line `line` of the text area and its number in the gutter sit on screen (their tops),
 * and what number the gutter shows there. */
function rows(page, line) {
  return page.evaluate((line) => {
    const t = document.getElementById('pbp-doc');
    const style = getComputedStyle(t);
    const lh = parseFloat(style.lineHeight);
    const box = t.getBoundingClientRect();
    const text = box.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop) + (line - 1) * lh - t.scrollTop;
    const numbers = document.querySelector('.pbp-gutter-numbers');
    const all = Array.from(numbers.children, (b) => b.textContent).join('\n').split('\n');
    const number = Array.from(numbers.children).find((b) => b.textContent.split('\n').includes(String(line)));
    const node = number.firstChild;
    const mine = node.data.split('\n');
    const at = mine.indexOf(String(line));
    const start = mine.slice(0, at).reduce((n, s) => n + s.length + 1, 0);
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, start + mine[at].length);
    const rect = range.getBoundingClientRect();
    return { text, number: rect.top, shown: all[line - 1], count: all.length, lh, scrolled: t.scrollTop };
  }, line);
}

test('line numbers follow the text’s lines after typing, pasting and scrolling; lines do not wrap', async () => {
  const page = await js.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${url}/`);
  const long = Array.from({ length: 300 }, (_, i) => `Line ${i + 1} ${'of a long line that would wrap '.repeat(i % 7 === 0 ? 8 : 0)}`).join('\n');
  await editorOf(page).fill(long);
  let at = await rows(page, 1);
  assert.equal(at.count, 300);
  assert.ok(Math.abs(at.text - at.number) < at.lh / 2, `line 1: text at ${at.text}, number at ${at.number}`);
  // No wrapping: the text is as tall as its lines.
  const fits = await page.evaluate(() => {
    const t = document.getElementById('pbp-doc');
    const s = getComputedStyle(t);
    return { wrap: t.getAttribute('wrap'), white: s.whiteSpace, wide: t.scrollWidth > t.clientWidth };
  });
  assert.equal(fits.wrap, 'off');
  assert.equal(fits.white, 'pre');
  assert.ok(fits.wide, 'the long lines scroll sideways');
  // The gutter is as tall as the text area, not as its 300 lines.
  const heights = await page.evaluate(() => [document.querySelector('.pbp-gutter'), document.getElementById('pbp-doc')]
    .map((e) => Math.round(e.getBoundingClientRect().height)));
  assert.equal(heights[0], heights[1]);

  // Typing new lines at the end.
  await editorOf(page).press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('typed');
  at = await rows(page, 301);
  assert.equal(at.count, 301);
  assert.equal(at.shown, '301');
  assert.ok(at.scrolled > 0, 'the text area scrolled to the end');
  assert.ok(Math.abs(at.text - at.number) < at.lh / 2, `line 301 after typing: text at ${at.text}, number at ${at.number}`);

  // A keystroke that keeps the line count leaves the numbers alone, and a new line rewrites
  // only the last block of them.
  const keep = () => page.evaluate(() => {
    for (const b of document.querySelector('.pbp-gutter-numbers').children) b.kept = true;
  });
  const kept = () => page.evaluate(() => Array.from(document.querySelector('.pbp-gutter-numbers').children).map((b) => b.kept === true));
  await keep();
  await page.keyboard.type('xyz');
  assert.ok((await kept()).every(Boolean), 'nothing rewritten');
  await page.keyboard.press('Enter');
  const after = await kept();
  assert.equal(after.at(-1), false);
  assert.ok(after.slice(0, -1).every(Boolean), 'only the last block rewritten');
  assert.ok(after.length > 1);

  // Pasting (one edit of many lines) in the middle.
  await page.evaluate(() => {
    const t = document.getElementById('pbp-doc');
    t.focus();
    t.setSelectionRange(10, 10);
  });
  await page.keyboard.insertText('a\nb\nc\nd\ne\n');
  at = await rows(page, 307);
  assert.equal(at.count, 307);

  // Scrolling the text area, by wheel and by script.
  await page.evaluate(() => { document.getElementById('pbp-doc').scrollTop = 2000; });
  await page.waitForFunction(() => document.querySelector('.pbp-gutter').scrollTop === document.getElementById('pbp-doc').scrollTop);
  const visible = Math.round(2000 / at.lh) + 3;
  at = await rows(page, visible);
  assert.equal(at.shown, String(visible));
  assert.ok(Math.abs(at.text - at.number) < at.lh / 2, `line ${visible} after scrolling: text at ${at.text}, number at ${at.number}`);
  await page.locator('#pbp-doc').hover();
  await page.mouse.wheel(0, -500);
  // The wheel may scroll smoothly: wait until the text stands still, with the gutter beside it.
  await page.waitForFunction(() => {
    const top = document.getElementById('pbp-doc').scrollTop;
    const still = window.lastTop === top;
    window.lastTop = top;
    return still && top < 2000 && document.querySelector('.pbp-gutter').scrollTop === top;
  }, null, { polling: 100 });
  at = await rows(page, visible - 10);
  assert.ok(Math.abs(at.text - at.number) < at.lh / 2, `after the wheel: text at ${at.text}, number at ${at.number}`);

  // A long document opened at its top, then its end: the numbers there are still in step,
  // though the blocks between were never drawn.
  await page.evaluate(() => {
    const t = document.getElementById('pbp-doc');
    t.value = Array.from({ length: 3050 }, (_, i) => `Row ${i + 1}`).join('\n');
    t.scrollTop = 0;
    t.dispatchEvent(new Event('input'));
  });
  await page.evaluate(() => { const t = document.getElementById('pbp-doc'); t.scrollTop = t.scrollHeight; });
  await page.waitForFunction(() => document.querySelector('.pbp-gutter').scrollTop === document.getElementById('pbp-doc').scrollTop);
  at = await rows(page, 3048);
  assert.equal(at.count, 3050);
  assert.ok(Math.abs(at.text - at.number) < at.lh / 2, `line 3048 at the end: text at ${at.text}, number at ${at.number}`);
  await page.close();
});

test('a problem marks its line in the gutter: an icon named by its message, gone once fixed', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  await editorOf(page).fill(BROKEN);
  await statusSays(page, 'Violating · 3 components · 1 error · 1 warning');
  const validation = await (await fetch(`${server.url}/v1/validate`, { method: 'POST', body: BROKEN })).json();
  const [error, warning] = validation.diagnostics;
  const marks = page.locator('.pbp-gutter button.pbp-mark');
  assert.equal(await marks.count(), 2);
  const shown = await marks.evaluateAll((ms) => ms.map((m) => ({
    line: +m.dataset.line, severity: m.dataset.severity, icon: m.textContent, name: m.getAttribute('aria-label'),
  })));
  assert.deepEqual(shown.map((m) => [m.line, m.severity]), [[error.line, 'error'], [warning.line, 'warning']]);
  assert.ok(shown.every((m) => m.icon.trim()), 'each mark has an icon, not only a colour');
  assert.notEqual(shown[0].icon, shown[1].icon);
  assert.equal(shown[0].name, `Line ${error.line}: error, ${error.message}`);
  // The mark sits on its line: its middle on the line's middle, its badge one line tall.
  // Each takes a tap over at least 24 × 24 CSS px though a line is shorter.
  const boxOf = (m) => {
    const b = m.getBoundingClientRect();
    const badge = getComputedStyle(m, '::before');
    return { top: b.top, width: b.width, height: b.height, badge: parseFloat(badge.height), badgeWidth: parseFloat(badge.width) };
  };
  const placed = await marks.first().evaluate(boxOf);
  const at = await rows(page, error.line);
  const middle = placed.top + placed.height / 2;
  assert.ok(Math.abs(middle - (at.text + at.lh / 2)) < 1, `the mark's middle at ${middle}, its line's at ${at.text + at.lh / 2}`);
  assert.ok(at.lh < 24, `a line is ${at.lh} px: the test would prove nothing at 24 px`);
  assert.ok(Math.abs(placed.badge - at.lh) < 0.5, `the badge is ${placed.badge} px tall, a line ${at.lh} px`);
  assert.ok(placed.badgeWidth < placed.width, 'the badge is narrower than its tap target');
  for (const m of await marks.evaluateAll((ms) => ms.map((m) => { const b = m.getBoundingClientRect(); return { w: b.width, h: b.height }; }))) {
    assert.ok(m.w >= 24 && m.h >= 24, `a mark's tap target is ${m.w} × ${m.h} px`);
  }
  // The marks do not cover the line numbers.
  const clear = await page.evaluate((line) => {
    const mark = document.querySelector('.pbp-mark').getBoundingClientRect();
    const numbers = document.querySelector('.pbp-gutter-numbers');
    const range = document.createRange();
    range.selectNodeContents(numbers);
    const first = [...range.getClientRects()].map((r) => r.left).filter((x) => x > 0);
    return { markEnd: mark.right, numbersStart: Math.min(...first) };
  }, error.line);
  assert.ok(clear.markEnd <= clear.numbersStart, `a mark ends at ${clear.markEnd}, the numbers start at ${clear.numbersStart}`);

  // Fixed: the error's mark goes, the warning's stays.
  await editorOf(page).fill(BROKEN.replace('["Blue"]', '["Blue", "Green"]'));
  await statusSays(page, 'Valid · 3 components · 1 warning');
  assert.deepEqual(await marks.evaluateAll((ms) => ms.map((m) => +m.dataset.line)), [warning.line]);
  await editorOf(page).fill('# Nothing wrong');
  await statusSays(page, 'Valid · 0 components');
  assert.equal(await marks.count(), 0);
  await page.close();
});

test('the marks by keyboard: Shift+Tab from the text reaches one, Enter takes the caret there, and the caret on a marked line says its problem', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  const prose = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of the notes.`).join('\n');
  const doc = `${prose}\n\n${BROKEN}`;
  await editorOf(page).fill(doc);
  await statusSays(page, 'Violating');
  const validation = await (await fetch(`${server.url}/v1/validate`, { method: 'POST', body: doc })).json();
  const [error, warning] = validation.diagnostics;
  await editorOf(page).focus();
  await page.keyboard.press('Shift+Tab');
  const focused = await page.evaluate(() => ({ line: document.activeElement.dataset.line, name: document.activeElement.getAttribute('aria-label') }));
  assert.equal(focused.line, String(warning.line));
  assert.match(focused.name, new RegExp(`^Line ${warning.line}: warning, `));
  // Its line came into view, and the gutter with it.
  assert.ok(await page.evaluate(() => document.getElementById('pbp-doc').scrollTop > 0));
  assert.ok(await page.evaluate(() => document.querySelector('.pbp-gutter').scrollTop === document.getElementById('pbp-doc').scrollTop));
  await page.keyboard.press('Enter');
  assert.deepEqual(await caret(page), { focused: true, line: warning.line, column: warning.column });
  const note = page.locator('#pbp-line-note');
  assert.equal(await note.getAttribute('role'), 'status');
  await note.filter({ hasText: `Line ${warning.line}: warning, ${warning.message}` }).waitFor();
  // Off the marked lines the note is empty; onto the error's line it says the error.
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal((await note.textContent()).trim(), '');
  for (let l = warning.line - 2; l > error.line; l--) await page.keyboard.press('ArrowUp');
  assert.equal((await caret(page)).line, error.line);
  await note.filter({ hasText: `Line ${error.line}: error, ${error.message}` }).waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.close();
});

test('a share link carries the document after #s=: it round-trips, and the server never receives it', async () => {
  const doc = `# Café ☕, שלום\n\n${CHOICE}`;
  const page = await js.newPage();
  await page.goto(`${url}/`);
  await editorOf(page).fill(doc);
  await statusSays(page, 'Valid · 1 component');
  await page.getByRole('button', { name: 'Share' }).click();
  const linkBox = page.getByRole('textbox', { name: /^Link to this document/ });
  await linkBox.waitFor();
  const link = await linkBox.inputValue();
  assert.match(link, new RegExp(`^${url}/#s=[A-Za-z0-9_-]+$`));
  assert.equal(page.url(), link, 'the address bar holds the link');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  const payload = link.slice(link.indexOf('#s=') + 3);
  await page.close();

  // Opened in a fresh browser profile: nothing carried over but the link.
  const other = await browser();
  try {
    const page2 = await other.newPage();
    const requests = [];
    page2.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
    await page2.goto(link);
    await statusSays(page2, 'Valid · 1 component');
    assert.equal(await editorOf(page2).inputValue(), doc);
    await previewOf(page2).getByRole('group', { name: 'Which auth method?' }).waitFor();
    await page2.getByRole('heading', { name: 'Café ☕, שלום' }).waitFor();
    // What the page asked for: itself (without the fragment), its assets, the rendering.
    const paths = requests.map((r) => r.replace(url, '').replace(/-[0-9a-f]{12}\./, '-HASH.'));
    assert.deepEqual(paths.sort(), [
      'GET /', 'GET /assets/passback-HASH.css', 'GET /assets/passback-HASH.js',
      'GET /assets/playground-HASH.css', 'GET /assets/playground-HASH.js',
      'POST /v1/render?format=fragment', 'POST /v1/validate',
    ]);
  } finally {
    await other.close();
  }
  const raw = received();
  assert.ok(raw.includes('GET / HTTP/1.1'), 'the relay saw the page requested');
  assert.ok(!raw.includes('#s='), 'a fragment reached the server');
  assert.ok(!raw.includes(payload.slice(0, 24)), 'the link’s payload reached the server');
});

test('a share link says so when the document is too large for a link, or the link is damaged', async () => {
  const page = await js.newPage();
  await page.goto(`${url}/`);
  // 60,000 characters that do not compress: well over the 32 KB a link may carry.
  let seed = 7;
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/';
  const noise = Array.from({ length: 60000 }, () => {
    seed = (seed * 48271) % 2147483647; // Park–Miller: exact in doubles
    return letters[seed & 63];
  }).join('');
  await editorOf(page).fill(noise);
  await statusSays(page, 'Valid · 0 components');
  await page.getByRole('button', { name: 'Share' }).click();
  await page.locator('#pbp-share-status').filter({ hasText: 'too large for a link' }).waitFor();
  assert.ok(await page.locator('#pbp-share-box').isHidden());
  assert.ok(!page.url().includes('#s='));

  await page.goto(`${url}/#s=not-a-document`);
  await page.locator('#pbp-share-status').filter({ hasText: 'could not be read' }).waitFor();
  await page.close();
});

test('JavaScript off: the form post renders the document and lists its problems under the kept text', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const page = await noJs.newPage();
    await page.goto(`${url}/`);
    assert.ok(await page.getByRole('button', { name: 'Share' }).isHidden());
    await editorOf(page).fill(BROKEN);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Render' }).click()]);
    assert.equal(await editorOf(page).inputValue(), BROKEN);
    await statusSays(page, 'Violating · 3 components · 1 error · 1 warning');
    const rows = page.locator('#pbp-diagnostics li.pbp-diag');
    assert.equal(await rows.count(), 2);
    assert.match(await rows.nth(0).textContent(), /^error\s*line 10, column \d+10:\d+\s*`options` has 1 entry;.*Hint: .*too_few$/);
    assert.match(await rows.nth(1).textContent(), /^warning\s*line 14, column \d+.*other_in_options$/);

    // The rendering beside it is a working form: "Get answers" gives the engine's export.
    await previewOf(page).getByRole('radio', { name: 'Magic link' }).check();
    await Promise.all([page.waitForURL('**/v1/answers'), previewOf(page).getByRole('button', { name: 'Get answers' }).click()]);
    assert.equal(await page.locator('#pb-export').inputValue(), await engineExport(BROKEN, { b1: { selected: ['Magic link'] } }));

    // Examples are links the server answers.
    await page.goto(`${url}/`);
    await Promise.all([page.waitForURL('**/?example=allocate'), page.getByRole('link', { name: 'Allocate' }).click()]);
    assert.equal(await editorOf(page).inputValue(), readFileSync(join(EXAMPLES, 'allocate.md'), 'utf8'));
    await previewOf(page).locator('[data-pb-kind="allocate"]').waitFor();
    await statusSays(page, 'Valid · 1 component');
  } finally {
    await noJs.close();
  }
});

for (const colorScheme of ['light', 'dark']) {
  test(`axe, script on, ${colorScheme}: the empty page, an example, problems and a share link`, async () => {
    const page = await js.newPage();
    await page.emulateMedia({ colorScheme });
    await page.goto(`${url}/`);
    await statusSays(page, 'No document yet.');
    assert.deepEqual(await axeViolations(page), [], 'empty');
    await page.getByRole('link', { name: 'Every component' }).click();
    await statusSays(page, 'Valid · 8 components');
    assert.deepEqual(await axeViolations(page), [], 'every component');
    await editorOf(page).fill(BROKEN);
    await statusSays(page, 'Violating');
    await page.getByRole('button', { name: 'Share' }).click();
    await page.locator('#pbp-share-box').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'problems and a share link');
    await page.close();
  });
}

test('axe, scripts blocked: the page as the form post serves it', async () => {
  const page = await js.newPage();
  // axe never finishes with JavaScript disabled: block the page's own scripts by policy.
  await page.route(`${url}/**`, async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': "script-src 'none'" } });
  });
  await page.goto(`${url}/?example=decision`);
  assert.equal(await page.evaluate(() => window.passback), undefined, 'scripts are blocked');
  assert.deepEqual(await axeViolations(page), [], 'an example');
  await editorOf(page).fill(BROKEN);
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Render' }).click()]);
  await page.locator('#pbp-diagnostics li').first().waitFor();
  assert.deepEqual(await axeViolations(page), [], 'problems');
  await page.close();
});

test('no sideways scrolling at 320 px with the script on or off; screenshots at 1280 and 375 px', async () => {
  for (const on of [true, false]) {
    const ctx = on ? js : await browser({ javaScriptEnabled: false });
    try {
      const page = await ctx.newPage();
      await page.setViewportSize({ width: 320, height: 700 });
      for (const doc of [DECISION, BROKEN, readFileSync(join(EXAMPLES, 'hebrew.md'), 'utf8')]) {
        await page.goto(`${url}/`);
        await editorOf(page).fill(doc);
        if (on) await statusSays(page, /Valid|Violating/);
        else await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Render' }).click()]);
        const where = `${doc.slice(0, 20)}… script ${on ? 'on' : 'off'}`;
        assert.deepEqual(await sticksOut(page), [], `${where}: elements outside the viewport`);
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
        assert.ok(scroll <= inner, `${where}: the page is ${scroll}px wide`);
      }
      await page.close();
    } finally {
      if (!on) await ctx.close();
    }
  }

  // Each shot waits for the status line of its own document, then shows the viewport, scrolled
  // to `at` when given.
  const shoot = async (name, { width, height, colorScheme = 'light', example = 'decision', doc = null, status, at = null }) => {
    const page = await js.newPage();
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    await page.goto(`${url}/?example=${example}`);
    if (doc) await editorOf(page).fill(doc);
    await statusSays(page, status);
    if (at) await page.locator(at).first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: join(SHOTS, 'playground', `${name}.png`) });
    await page.close();
  };
  const broken = 'Violating · 3 components · 1 error · 1 warning';
  await shoot('1280-light', { width: 1280, height: 800, status: 'Valid · 8 components' });
  await shoot('1280-dark', { width: 1280, height: 800, colorScheme: 'dark', status: 'Valid · 8 components' });
  await shoot('1280-problems', { width: 1280, height: 800, doc: BROKEN, status: broken });
  await shoot('1280-hebrew-dark', { width: 1280, height: 800, colorScheme: 'dark', example: 'hebrew', status: 'Valid · 3 components' });
  await shoot('375-light', { width: 375, height: 812, example: 'prioritize', status: 'Valid · 1 component' });
  await shoot('375-light-preview', { width: 375, height: 812, example: 'prioritize', status: 'Valid · 1 component', at: '.pbp-preview' });
  await shoot('375-dark-problems', { width: 375, height: 812, colorScheme: 'dark', doc: BROKEN, status: broken, at: '#pbp-doc' });
});
