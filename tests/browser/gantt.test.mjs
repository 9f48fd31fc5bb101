// A gantt chart drawn by the server, in Chromium: axe-clean light and dark, each task and
// milestone a comment target of the existing comment UI, and the comments copy back as the
// engine exports them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';

const OUT = join(SHOTS, 'gantt');
const SOURCE = `gantt
  title Release plan
  dateFormat YYYY-MM-DD
  axisFormat %b %d
  excludes weekends
  section Design
  Write the spec     :done, spec, 2024-01-01, 5d
  Review             :active, review, after spec, 3d
  section Build
  Server             :crit, server, after review, 10d
  Client             :client, after review, 8d
  Ship               :milestone, ship, after server client, 0d`;
let server;
let ctx;
before(async () => {
  server = await startServer();
  ctx = await browser({ viewport: { width: 1100, height: 900 } });
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

test('gantt chart: comments on a task and a milestone', async () => {
  const md = '```mermaid\n' + JSON.stringify({ version: '1', source: SOURCE, title: 'Plan' }) + '\n```\n';
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(await renderedPage(server, md));
  const svg = page.locator('[data-pb-kind="mermaid"] svg').first();
  assert.match(await svg.getAttribute('class'), /pb-mermaid-gantt/);
  assert.match(await page.locator('svg desc').textContent(),
    /Gantt chart from 2024-01-01 to .*Section “Design”: “Write the spec” from 2024-01-01 to 2024-01-06 \(done\); “Review” from 2024-01-08 to 2024-01-11 \(active\).*milestone “Ship” on 2024-01-25\./);
  // Every task is a node, by Mermaid's id; no dependency is an edge.
  assert.deepEqual(await page.locator('svg [data-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node'))),
    ['spec', 'review', 'server', 'client', 'ship']);
  assert.equal(await page.locator('svg [data-edge]').count(), 0);
  // A task, by a click on its bar.
  await page.locator('svg [data-node="server"] rect').click();
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('two more days?');
  // The milestone, by keyboard.
  await page.locator('svg [data-node="ship"]').focus();
  await page.keyboard.press('Enter');
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('a Friday?');
  const marked = await page.locator('svg .pb-commented').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')).sort());
  assert.deepEqual(marked, ['server', 'ship']);
  const markdown = await page.evaluate(() => window.passback.exportAnswers(document.querySelector('.pb-doc')).markdown);
  for (const line of ['## Plan (diagram)', '- Node `server` — two more days?', '- Node `ship` — a Friday?']) {
    assert.ok(markdown.includes(line), `${line} in:\n${markdown}`);
  }
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}`);
    await page.locator('.pb-diagram').first().screenshot({ path: join(OUT, `comments-${scheme}.png`) });
  }
  // The critical task's outline follows the theme.
  const stroke = await page.locator('svg [data-node="server"] rect').evaluate((r) => getComputedStyle(r).stroke);
  assert.equal(stroke, 'rgb(248, 81, 73)');
  assert.deepEqual(problems, []);
  await page.close();
});
