// A sequence diagram drawn by the server, in Chromium: axe-clean light and dark, each message
// and participant a comment target of the existing comment UI (the second arrow of a repeated
// pair opens its own field), and the comments copy back as the engine exports them. Screenshots
// of Mermaid's documented sequence diagrams (fixtures/mermaid-sequence) go to
// target/screenshots/sequence for a person to look at (not committed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';
import { fixture } from './people.mjs';

const OUT = join(SHOTS, 'sequence');
let server;
let ctx;
before(async () => {
  server = await startServer();
  ctx = await browser({ viewport: { width: 1000, height: 800 } });
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

async function open(url) {
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(url);
  return { page, problems };
}

test('sequence diagram: comments on a participant and on messages, by click and by keyboard', async () => {
  const fx = fixture('mermaid-sequence-comments');
  const { page, problems } = await open(await renderedPage(server, fx.md));
  const svg = page.locator('[data-pb-kind="mermaid"] svg').first();
  assert.match(await svg.getAttribute('class'), /pb-mermaid-sequence/);
  assert.equal(await svg.getAttribute('role'), 'group');
  // The description says who sends what to whom, in order.
  assert.match(await page.locator('svg desc').textContent(),
    /In order: from “Client” to “Server”, labelled “POST \/answers”; from “Server” to “Client”, labelled “303 See Other”, dotted; from “Client” to “Server”, labelled “GET \/answers”/);
  const [whole, node, first, second] = fx.responses.b1.comments;
  // The diagram itself (not a part of it) opens the whole-diagram comment.
  await svg.click({ position: { x: 3, y: 3 } });
  assert.equal(await page.evaluate(() => document.activeElement.name), 'b1.comment');
  await page.keyboard.type(whole.text);
  // The second C→S message is its own target.
  const again = page.locator('svg [data-edge="C→S#2"]');
  assert.equal(await again.getAttribute('role'), 'button');
  assert.match(await again.getAttribute('aria-label'), /GET \/answers/);
  await again.click();
  assert.equal(await page.evaluate(() => document.activeElement.name), 'b1.edge.2');
  await page.keyboard.type(second.text);
  // A participant, by keyboard.
  await page.locator(`svg [data-node="${node.id}"]`).focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.name), 'b1.node.1');
  await page.keyboard.type(node.text);
  await page.locator('svg [data-edge="C→S"]').click();
  assert.equal(await page.evaluate(() => document.activeElement.name), 'b1.edge.0');
  await page.keyboard.type(first.text);
  const marked = await page.locator('svg .pb-commented').evaluateAll((els) => els.map((e) => e.getAttribute('data-edge') || e.getAttribute('data-node')).sort());
  assert.deepEqual(marked, ['C→S', 'C→S#2', 'S']);
  assert.equal(await page.evaluate(() => window.passback.exportAnswers(document.querySelector('.pb-doc')).markdown),
    fx.expected);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}`);
    await page.locator('.pb-diagram').first().screenshot({ path: join(OUT, `comments-${scheme}.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("Mermaid's documented sequence diagrams are drawn, on screen, with every participant a target", async () => {
  const dir = join(ROOT, 'fixtures', 'mermaid-sequence');
  const files = readdirSync(dir).filter((f) => f.endsWith('.mmd')).sort();
  assert.ok(files.length >= 30);
  // All of them in one document: one page, many diagrams.
  const doc = files.map((f) => '```mermaid\n' + JSON.stringify({ version: '1', source: readFileSync(join(dir, f), 'utf8'), title: f.replace(/\.mmd$/, '') }) + '\n```\n').join('\n');
  const { page, problems } = await open(await renderedPage(server, doc));
  const drawn = await page.locator('svg.pb-mermaid-sequence').count();
  assert.equal(drawn, files.length);
  const figures = page.locator('.pb-diagram');
  for (let i = 0; i < files.length; i++) {
    await figures.nth(i).screenshot({ path: join(OUT, files[i].replace(/\.mmd$/, '.png')) });
  }
  const heads = await page.$$eval('svg.pb-mermaid-sequence [data-node]', (nodes) => nodes.map((n) => {
    const r = n.getBoundingClientRect();
    return { w: r.width, h: r.height, target: n.classList.contains('pb-target') };
  }));
  assert.ok(heads.length > 60);
  for (const h of heads) assert.ok(h.w > 4 && h.h > 4 && h.target);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});
