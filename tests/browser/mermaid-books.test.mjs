// Real books that used mdbook-mermaid (fixtures/mdbook-mermaid-books/), switched to
// `mermaid = "svg"` and built with the real mdbook, looked at in Chromium under each of mdBook's
// themes and either system preference: the diagrams follow the book's theme (a dark panel in
// coal, navy and ayu, a light one in light and rust), their text and notes stay readable, and
// screenshots of a page in a light and a dark theme are written for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, BIN, SHOTS, browser } from './harness.mjs';

const PLUGIN = join(dirname(BIN), 'mdbook-passback');
const BOOKS = { hermes: 'documentation/commands/tx/connection.html', zebra: 'dev/diagrams/mempool-architecture.html' };
let dir;
let ctx;

/** book.toml switched as its authors would: mdbook-mermaid out, `mermaid = "svg"` in; the
 * other preprocessors and outputs (tools this build does not have) and `multilingual` (which
 * mdBook 0.5 refuses) left out, as mdbook-plugin/tests/mermaid_books.rs does. */
function switchToml(toml) {
  const out = [];
  let skipping = false;
  for (const line of toml.split('\n')) {
    const table = line.match(/^\[([^\]]+)\]/);
    if (table) skipping = /^preprocessor\.|^output\.(?!html)/.test(table[1]);
    if (skipping || /^multilingual\s*=/.test(line)) continue;
    out.push(line.startsWith('additional-js')
      ? line.replace(/"[^"]*mermaid[^"]*",?\s*/g, '').replace(/,\s*\]/, ']')
      : line);
  }
  return `${out.join('\n')}\n[preprocessor.passback]\nmermaid = "svg"\n`;
}

before(() => {
  dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-mermaid-books-'));
  const env = { ...process.env, PATH: `${dirname(PLUGIN)}:${process.env.PATH}` };
  for (const name of Object.keys(BOOKS)) {
    const book = join(dir, name);
    cpSync(join(ROOT, 'fixtures', 'mdbook-mermaid-books', name), book, { recursive: true });
    writeFileSync(join(book, 'book.toml'), switchToml(readFileSync(join(book, 'book.toml'), 'utf8')));
    execFileSync(PLUGIN, ['install', book], { stdio: 'pipe' });
    execFileSync('mdbook', ['build', book, '--dest-dir', join(book, 'book')], { stdio: 'pipe', env });
  }
});

after(async () => {
  await ctx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** In the page: the diagram panel's luminance, and the worst contrast of its own text against
 * the panel and of a note's text against the note. */
function measure() {
  const rgb = (s) => (s.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = (s) => {
    const [r, g, b] = rgb(s).map((v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const canvas = document.querySelector('.pb-figure .pb-diagram-canvas');
  const panel = getComputedStyle(canvas).backgroundColor;
  const text = getComputedStyle(canvas.querySelector(':is(.pb-d-text, .pb-d-label):not(.pb-d-authored)')).fill;
  const notes = [...document.querySelectorAll('.pb-figure .pb-s-note')].map((n) => getComputedStyle(n).fill);
  return {
    theme: document.documentElement.className,
    panel: lum(panel),
    text: ratio(text, panel),
    notes: notes.length ? Math.min(...notes.map((n) => ratio(text, n))) : null,
  };
}

test('the diagrams follow every mdBook theme, whatever the system prefers, and stay readable', async () => {
  ctx = await browser();
  const page = await ctx.newPage();
  const bad = [];
  for (const [name, chapter] of Object.entries(BOOKS)) {
    await page.goto(pathToFileURL(join(dir, name, 'book', chapter)).href);
    assert.ok(await page.locator('.pb-figure svg').count() > 0, `${name}: the chapter has a drawn diagram`);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      // mdBook switches its theme when the system's preference changes: let it, then set ours.
      await page.waitForTimeout(200);
      for (const theme of ['light', 'rust', 'coal', 'navy', 'ayu']) {
        // As a reader picks it, from mdBook's own theme menu.
        if (!(await page.isVisible(`#mdbook-theme-${theme}`))) await page.click('#mdbook-theme-toggle');
        await page.click(`#mdbook-theme-${theme}`);
        await page.keyboard.press('Escape');
        const m = await page.evaluate(measure);
        const dark = ['coal', 'navy', 'ayu'].includes(theme);
        const at = `${name} ${theme} (system ${scheme})`;
        assert.ok(m.theme.split(' ').includes(theme), `${at}: the page is in ${m.theme}`);
        if (dark ? m.panel > 0.2 : m.panel < 0.6) bad.push(`${at}: panel luminance ${m.panel.toFixed(2)}`);
        if (m.text < 4.5) bad.push(`${at}: text contrast ${m.text.toFixed(2)}`);
        if (m.notes !== null && m.notes < 4.5) bad.push(`${at}: note contrast ${m.notes.toFixed(2)}`);
        if (scheme === 'light' && (theme === 'light' || theme === 'coal')) {
          mkdirSync(join(SHOTS, 'mdbook-mermaid-books'), { recursive: true });
          await page.screenshot({ path: join(SHOTS, 'mdbook-mermaid-books', `${name}-${theme}.png`), fullPage: true });
        }
      }
    }
  }
  assert.deepEqual(bad, []);
  await page.close();
});
