// A state diagram drawn by the server, in Chromium: axe-clean light and dark, each state
// (composites and a region's start too) and each transition a comment target of the existing
// comment UI, and the comments copy back as the engine exports them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';

const OUT = join(SHOTS, 'state');
const SOURCE = `stateDiagram-v2
  [*] --> Idle
  Idle --> Busy : start
  state Busy {
    [*] --> Working
    --
    [*] --> Logging
  }
  Busy --> Idle : done
  note right of Idle : waits for work`;
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

test('state diagram: comments on a composite state, a region\'s start and a transition', async () => {
  const md = '```mermaid\n' + JSON.stringify({ version: '1', source: SOURCE, title: 'Worker' }) + '\n```\n';
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(await renderedPage(server, md));
  const svg = page.locator('[data-pb-kind="mermaid"] svg').first();
  assert.match(await svg.getAttribute('class'), /pb-mermaid-state/);
  assert.match(await page.locator('svg desc').textContent(),
    /State diagram, top to bottom\. States: “Idle”; “Working”; “Logging”\. Transitions: from start to “Idle”; from “Idle” to “Busy”, labelled “start”/);
  // The composite state, by click.
  await page.locator('svg [data-node="Busy"]').click({ position: { x: 30, y: 12 } });
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('too many regions?');
  // The second region's start, by keyboard.
  await page.locator('svg [data-node="Busy/2_start"]').focus();
  await page.keyboard.press('Enter');
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('starts with the first?');
  // A transition, by a click on its label.
  await page.locator('svg [data-edge="Idle→Busy"] .pb-d-label-bg').click();
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.edge\.\d+$/);
  await page.keyboard.type('who starts it?');
  const marked = await page.locator('svg .pb-commented').evaluateAll((els) => els.map((e) => e.getAttribute('data-edge') || e.getAttribute('data-node')).sort());
  assert.deepEqual(marked, ['Busy', 'Busy/2_start', 'Idle→Busy']);
  const markdown = await page.evaluate(() => window.passback.exportAnswers(document.querySelector('.pb-doc')).markdown);
  for (const line of ['## Worker (diagram)', '- Node `Busy` — too many regions?', '- Node `Busy/2_start` — starts with the first?', '- Edge `Idle→Busy` — who starts it?']) {
    assert.ok(markdown.includes(line), `${line} in:\n${markdown}`);
  }
  // Notes take no comments.
  assert.equal(await page.locator('svg .pb-d-note [data-node], svg .pb-d-note[data-node]').count(), 0);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}`);
    await page.locator('.pb-diagram').first().screenshot({ path: join(OUT, `comments-${scheme}.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});
