// Comments on the prose of an mdBook chapter, which mdBook renders itself: the preprocessor marks
// the chapter, the script numbers its prose leaves in the page. Built with the real mdbook and
// mdbook-passback, served as static files (no passback server), read in Chromium:
// - the leaves the script numbers in mdBook's HTML are the engine's leaves of the same Markdown,
//   number for number and text for text (the numbering lives in Rust and in the script);
// - a reader comments on a paragraph, a list item, a table row and a code block, answers the
//   component and comments on the whole page; the chapter's "Copy all answers on this page"
//   gives exactly what
//   the engine exports for those answers and those leaf numbers (`passback answers`), with
//   `## Comments on the text` in contract §7's format;
// - print.html (every chapter on one page) numbers each chapter as its own page does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, extname, dirname } from 'node:path';
import { ROOT, BIN, browser } from './harness.mjs';

const PLUGIN = join(dirname(BIN), 'mdbook-passback');

// Plain ASCII punctuation: mdBook's smart punctuation would curl quotes the engine leaves
// straight (each quotes the text as its own page shows it).
const CHAPTER = `# Choosing a wiki

We have outgrown the old wiki: search is slow, editing on a phone is painful, and nobody trusts the page history.

## What we know

- Search takes seconds
- Editing on a phone
  - fails on *every* form
- The history is incomplete

1. First, a loose item

2. Second, with \`code\` in it

> A quoted paragraph from the survey.
>
> And a second one.

| Option | Cost |
|---|---|
| Hosted | 10 a month |
| Self-hosted | our time |

\`\`\`text
migrate --dry-run
\`\`\`

\`\`\`single-choice
{ "version": "1", "question": "Which wiki do we move to?", "options": ["Hosted", "Self-hosted"] }
\`\`\`

A closing paragraph with a [link](https://example.com) and a line
break, then **bold** text.
`;

let dir;
let server;
let url;
let ctx;

before(async () => {
  dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-chapter-'));
  cpSync(join(ROOT, 'examples', 'book'), dir, { recursive: true, filter: (p) => !p.endsWith('/book/book') });
  writeFileSync(join(dir, 'src', 'comments.md'), CHAPTER);
  writeFileSync(join(dir, 'src', 'SUMMARY.md'), `${readFileSync(join(dir, 'src', 'SUMMARY.md'), 'utf8').trimEnd()}\n- [Comments](comments.md)\n`);
  execFileSync(PLUGIN, ['install', dir], { stdio: 'pipe' });
  execFileSync('mdbook', ['build', dir], { stdio: 'pipe', env: { ...process.env, PATH: `${dirname(PLUGIN)}:${process.env.PATH}` } });
  const types = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.json': 'application/json' };
  server = createServer((req, res) => {
    const path = join(dir, 'book', decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!existsSync(path) || path.endsWith('/')) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': types[extname(path)] || 'application/octet-stream' });
    res.end(readFileSync(path));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}`;
  ctx = await browser();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
});
after(async () => {
  await ctx?.close();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A chapter's Markdown as mdBook reads it ({{#include}} expanded, as the links preprocessor does). */
function chapterSource(name) {
  const src = join(dir, 'src');
  return readFileSync(join(src, name), 'utf8')
    .replace(/\{\{#include ([^}]+)\}\}/g, (_, file) => readFileSync(join(src, file.trim()), 'utf8'));
}

/** The leaves the script numbered on the page: [[n, text], …] in number order. */
function pageLeaves(page, chapter = null) {
  return page.evaluate((key) => {
    const marker = key ? document.querySelector(`.pb-chapter[data-pb-chapter="${key}"]`) : document.querySelector('.pb-chapter');
    return marker.querySelector('form').pbLeaves.map((e) => [Number(e.getAttribute('data-pb-leaf')), window.passback.leafText(e)]);
  }, chapter);
}

/** The engine's leaves of the same Markdown: its fragment's data-pb-leaf elements, read the same way. */
function engineLeaves(page, markdown) {
  const file = join(dir, 'engine-input.md');
  writeFileSync(file, markdown);
  const html = execFileSync(BIN, ['render', file, '--format', 'fragment'], { encoding: 'utf8' });
  return page.evaluate((fragment) => {
    const holder = document.createElement('div');
    holder.innerHTML = fragment;
    return [...holder.querySelectorAll('[data-pb-leaf]')]
      .map((e) => [Number(e.getAttribute('data-pb-leaf')), window.passback.leafText(e)])
      .sort((a, b) => a[0] - b[0]);
  }, html);
}

test('the script numbers mdBook\'s prose as the engine numbers the same Markdown', async () => {
  const page = await ctx.newPage();
  for (const chapter of ['comments', 'decisions', 'nested']) {
    await page.goto(`${url}/${chapter}.html`);
    await page.waitForFunction(() => window.passback && document.querySelector('.pb-chapter form'));
    const mine = await pageLeaves(page);
    const engine = await engineLeaves(page, chapterSource(`${chapter}.md`));
    assert.ok(mine.length >= 2, `${chapter}: leaves found (${mine.length})`);
    assert.deepEqual(mine, engine, `${chapter}: the page's leaves and the engine's`);
  }
  await page.close();
});

test('comment on the prose of a book page: Copy answers gives the engine\'s export with the comments on the text', async () => {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}/comments.html`);
  const chapter = page.locator('.pb-chapter');
  await chapter.getByRole('button', { name: 'Copy all answers on this page', exact: true }).waitFor();

  const comment = async (startsWith, text) => {
    const button = page.getByRole('button', { name: new RegExp(`^Comment on “${startsWith}`) });
    await button.click();
    const box = page.getByRole('textbox', { name: new RegExp(`^Comment on “${startsWith}`) });
    await box.fill(text);
    // The leaf's number, as the script gave it.
    return Number(await button.evaluate((b) => b.pbLeaf.getAttribute('data-pb-leaf')));
  };
  const onOutgrown = await comment('We have outgrown', 'the phone part\nis the real reason');
  const onSearch = await comment('Search takes seconds', 'minutes, some days');
  const onRow = await comment('Self-hosted our time', 'and a weekend a month');
  const onCode = await comment('migrate --dry-run', 'run it on a copy first');
  await page.getByRole('radio', { name: 'Self-hosted' }).check();
  await chapter.locator('summary', { hasText: 'Comment on the whole document (optional)' }).click();
  await chapter.getByRole('textbox', { name: 'Comment on the whole document (optional)' }).fill('please decide before Friday');
  // mdBook's own menu bar is its business: the chapter (main) with our controls is audited.
  await page.evaluate(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const audit = await page.evaluate(() => window.axe.run({ include: [['main']] }, { resultTypes: ['violations'] }));
  assert.deepEqual(audit.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id), [],
    'axe on the chapter with comments open');

  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await chapter.getByRole('button', { name: 'Copy all answers on this page', exact: true }).click();
  await chapter.locator('.pb-copy-status').filter({ hasText: 'copied' }).waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());

  const doc = join(dir, 'comments-doc.md');
  const res = join(dir, 'comments-responses.json');
  writeFileSync(doc, CHAPTER);
  writeFileSync(res, JSON.stringify({
    b1: { selected: ['Self-hosted'] },
    annotations: [
      { leaf: onOutgrown, text: 'the phone part\nis the real reason' },
      { leaf: onSearch, text: 'minutes, some days' },
      { leaf: onRow, text: 'and a weekend a month' },
      { leaf: onCode, text: 'run it on a copy first' },
      { text: 'please decide before Friday' },
    ],
  }));
  const expected = execFileSync(BIN, ['answers', '--doc', doc, '--responses', res], { encoding: 'utf8' });
  assert.match(expected, /## Comments on the text\n\n- On "We have outgrown the old wiki: search is slow, editing on a phone is…" — the phone part is the real reason\n/);
  assert.match(expected, /- On "Self-hosted our time" — and a weekend a month\n/);
  assert.match(expected, /- On the whole document — please decide before Friday\n$/);
  assert.equal(copied, expected);
  assert.deepEqual(errors, []);
  await page.close();
});

test('print.html numbers each chapter as its own page does', async () => {
  const page = await ctx.newPage();
  const own = {};
  for (const chapter of ['comments', 'decisions']) {
    await page.goto(`${url}/${chapter}.html`);
    await page.waitForFunction(() => document.querySelector('.pb-chapter form'));
    own[chapter] = { key: await page.locator('.pb-chapter').getAttribute('data-pb-chapter'), leaves: await pageLeaves(page) };
  }
  await page.goto(`${url}/print.html`);
  await page.waitForFunction(() => document.querySelectorAll('.pb-chapter form').length >= 3);
  for (const chapter of ['comments', 'decisions']) {
    assert.deepEqual(await pageLeaves(page, own[chapter].key), own[chapter].leaves, `${chapter} in print.html`);
  }
  await page.close();
});

test('JavaScript off: a book page shows no comment box it cannot send', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const page = await noJs.newPage();
    await page.goto(`${url}/comments.html`);
    assert.equal(await page.locator('.pb-chapter').isHidden(), true);
    assert.equal(await page.getByText('Comment on the whole document').count(), 0);
  } finally {
    await noJs.close();
  }
});
