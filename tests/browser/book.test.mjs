// The mdBook preprocessor end to end: build examples/book with the real mdbook and
// mdbook-passback, serve the HTML from a plain static server (no passback server at all), fill
// components in Chromium, press "Copy answers", and compare with the engine's own export
// (`passback answers`) for the same choices.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, extname, dirname } from 'node:path';
import { ROOT, BIN, SHOTS, browser, sticksOut } from './harness.mjs';

const PLUGIN = join(dirname(BIN), 'mdbook-passback');
let dir;
let server;
let url;
let ctx;

before(async () => {
  dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-book-'));
  cpSync(join(ROOT, 'examples', 'book'), dir, { recursive: true, filter: (p) => !p.endsWith('/book/book') });
  const env = { ...process.env, PATH: `${dirname(PLUGIN)}:${process.env.PATH}` };
  // As shipped (no install first): one "Copy all answers on this page" per chapter, built into
  // book-default/. Then with copy = "component", each component's own "Copy answers", which
  // the tests below press.
  execFileSync('mdbook', ['build', dir, '--dest-dir', join(dir, 'book-default')], { stdio: 'pipe', env });
  execFileSync(PLUGIN, ['install', dir], { stdio: 'pipe' });
  const toml = join(dir, 'book.toml');
  writeFileSync(toml, readFileSync(toml, 'utf8').replace('[preprocessor.passback]\n', '[preprocessor.passback]\ncopy = "component"\n'));
  execFileSync('mdbook', ['build', dir], { stdio: 'pipe', env });
  const types = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.json': 'application/json' };
  server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const path = pathname.startsWith('/default/')
      ? join(dir, 'book-default', pathname.slice('/default'.length))
      : join(dir, 'book', pathname);
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

/** The engine's export of one component fence for `responses` (keyed b1). */
function engineExport(fence, responses) {
  const doc = join(dir, 'mini.md');
  const res = join(dir, 'mini.json');
  writeFileSync(doc, fence);
  writeFileSync(res, JSON.stringify({ b1: responses }));
  return execFileSync(BIN, ['answers', '--doc', doc, '--responses', res], { encoding: 'utf8' });
}

function fenceOf(chapter, startsWith) {
  const text = readFileSync(join(ROOT, 'examples', 'book', 'src', chapter), 'utf8');
  const at = text.indexOf(startsWith);
  const end = text.indexOf('\n```\n', at) + 5;
  return text.slice(at, end);
}

async function copyFrom(page, docRoot) {
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await docRoot.getByRole('button', { name: 'Copy answers', exact: true }).click();
  await docRoot.locator('.pb-copy-status').filter({ hasText: 'copied' }).waitFor();
  return page.evaluate(() => navigator.clipboard.readText());
}

test('a book page with no server: fill in, Copy answers, same export as the engine', async () => {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}/decisions.html`);

  const choice = page.locator('.pb-doc').filter({ hasText: 'Which host serves the docs?' });
  await choice.getByLabel('Netlify').check();
  const copied = await copyFrom(page, choice);
  assert.equal(copied, engineExport(fenceOf('decisions.md', '```single-choice\n{ "version": "1", "question": "Which host'), { selected: ['Netlify'] }));

  const rank = page.locator('.pb-doc').filter({ hasText: 'Migration order' });
  await rank.getByRole('button', { name: 'Move API reference up' }).click();
  const ranked = await copyFrom(page, rank);
  assert.equal(ranked, engineExport(fenceOf('decisions.md', '```prioritize'), { order: ['api', 'guide', 'blog'] }));

  // No "Get answers" button: there is nowhere to post on a static site.
  assert.equal(await page.getByRole('button', { name: 'Get answers' }).count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('by default a chapter has one copy button, which copies every component', async () => {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}/default/decisions.html`);
  const all = page.getByRole('button', { name: 'Copy all answers on this page', exact: true });
  await all.waitFor();
  assert.equal(await all.count(), 1);
  assert.equal(await page.getByRole('button', { name: 'Copy answers', exact: true }).count(), 0);
  await page.locator('.pb-doc').filter({ hasText: 'Which host serves the docs?' }).getByLabel('Netlify').check();
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await all.click();
  await page.locator('.pb-chapter .pb-copy-status').filter({ hasText: 'copied' }).waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(copied.includes('Netlify'), copied);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the widgets in the book are accessible', async () => {
  const page = await ctx.newPage();
  for (const chapter of ['decisions.html', 'nested.html', 'media.html']) {
    await page.goto(`${url}/${chapter}`);
    await page.evaluate(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
    const result = await page.evaluate(() => window.axe.run({ include: [['.pb-doc']] }, { resultTypes: ['violations'] }));
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${chapter}: ${v.id}`);
    assert.deepEqual(serious, []);
  }
  await page.close();
});

test('the widgets follow every mdBook theme with readable contrast', async () => {
  const page = await ctx.newPage();
  const bad = [];
  for (const chapter of ['decisions.html', 'nested.html', 'media.html']) {
    await page.goto(`${url}/${chapter}`);
    await page.evaluate(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
    for (const theme of ['light', 'rust', 'coal', 'navy', 'ayu']) {
      await page.evaluate((t) => {
        const html = document.documentElement;
        for (const c of ['light', 'rust', 'coal', 'navy', 'ayu']) html.classList.remove(c);
        html.classList.add(t);
      }, theme);
      const result = await page.evaluate(() => window.axe.run({ include: [['.pb-doc']] }, { runOnly: ['color-contrast'] }));
      bad.push(...result.violations.flatMap((v) => v.nodes.map((n) => `${chapter} ${theme}: ${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`)));
    }
  }
  assert.deepEqual(bad, [], 'contrast under the mdBook themes');
  await page.close();
});

test("the widgets' text is the size of the chapter's text (mdBook's root font is 10px)", async () => {
  const page = await ctx.newPage();
  await page.goto(`${url}/decisions.html`);
  const sizes = await page.evaluate(() => {
    const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
    return { prose: px('main p'), legend: px('.pb-doc legend'), label: px('.pb-doc .pb-option label'), badge: px('.pb-doc .pb-badge') };
  });
  assert.ok(Math.abs(sizes.legend - sizes.prose) <= 2, JSON.stringify(sizes));
  assert.ok(Math.abs(sizes.label - sizes.prose) <= 2, JSON.stringify(sizes));
  assert.ok(sizes.badge >= 11, JSON.stringify(sizes));
  await page.close();
});

test('JavaScript off, a book page with no answers action never posts', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const page = await noJs.newPage();
    await page.goto(`${url}/decisions.html`);
    const requests = [];
    page.on('request', (r) => { if (r.method() === 'POST') requests.push(r.url()); });
    await page.getByRole('button', { name: 'Move API reference up' }).click();
    const other = page.locator('.pb-doc input.pb-other-text').first();
    await other.fill('typed');
    await other.press('Enter');
    await page.waitForTimeout(300);
    assert.deepEqual(requests, []);
    assert.equal(new URL(page.url()).pathname, '/decisions.html');
    assert.equal(await other.inputValue(), 'typed', 'what the reader typed is still there');
  } finally {
    await noJs.close();
  }
});

for (const js of [true, false]) {
  test(`JavaScript ${js ? 'on' : 'off'}: the widgets fit a phone-wide book page`, async () => {
    const phone = await browser({ javaScriptEnabled: js, viewport: { width: 320, height: 800 } });
    try {
      for (const chapter of ['decisions.html', 'nested.html', 'media.html']) {
        for (const width of [320, 360, 375]) {
          const page = await phone.newPage();
          await page.setViewportSize({ width, height: 800 });
          await page.goto(`${url}/${chapter}`);
          if (js) await page.waitForFunction(() => window.passback);
          if (width === 320) {
            mkdirSync(join(SHOTS, 'phone'), { recursive: true });
            await page.screenshot({ path: join(SHOTS, 'phone', `book-${chapter.replace('.html', '')}-320-${js ? 'js' : 'nojs'}.png`), fullPage: true });
          }
          // mdBook's own menu bar and sidebar are its business; the widgets are ours.
          assert.deepEqual(await sticksOut(page, '.pb-doc'), [], `${chapter} at ${width}px: widgets outside the viewport`);
          const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
          assert.ok(scroll <= inner, `${chapter} at ${width}px: the page is ${scroll}px wide`);
          await page.close();
        }
      }
    } finally {
      await phone.close();
    }
  });
}
