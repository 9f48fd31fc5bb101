// An ER diagram drawn by the server, in Chromium: axe-clean light and dark, each entity and
// each relationship a comment target of the existing comment UI, and the comments copy back as
// the engine exports them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';

const OUT = join(SHOTS, 'er');
const SOURCE = `erDiagram
  CUSTOMER ||--o{ ORDER : places
  ORDER ||--|{ LINE-ITEM : contains
  CUSTOMER }|..|{ ADDRESS : uses
  p[Payment]
  ORDER |o--|| p : "paid by"
  CUSTOMER {
    string id PK "opaque"
    string name
    string email UK
  }
  ORDER {
    int number PK
    string customer_id FK
  }
  style ADDRESS fill:#fde68a`;
let server;
let ctx;
before(async () => {
  server = await startServer();
  ctx = await browser({ viewport: { width: 1000, height: 900 } });
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

test('ER diagram: comments on an entity, an aliased entity and a relationship', async () => {
  const md = '```mermaid\n' + JSON.stringify({ version: '1', source: SOURCE, title: 'Shop' }) + '\n```\n';
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(await renderedPage(server, md));
  const svg = page.locator('[data-pb-kind="mermaid"] svg').first();
  assert.match(await svg.getAttribute('class'), /pb-mermaid-er/);
  assert.match(await page.locator('svg desc').textContent(),
    /Entity relationship diagram, top to bottom\. Entities: “CUSTOMER”; “ORDER”; “LINE-ITEM”; “ADDRESS”; “Payment” \(p\)\./);
  // The entity, by a click on its name.
  await page.locator('svg [data-node="CUSTOMER"]').click({ position: { x: 20, y: 10 } });
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('split the name?');
  // The aliased entity, by keyboard: its id is the name Mermaid keys it by.
  await page.locator('svg [data-node="p"]').focus();
  await page.keyboard.press('Enter');
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('which provider?');
  // A relationship, by a click on its label.
  await page.locator('svg [data-edge="CUSTOMER→ORDER"] .pb-d-label-bg').click();
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.edge\.\d+$/);
  await page.keyboard.type('guests too?');
  const marked = await page.locator('svg .pb-commented').evaluateAll((els) => els.map((e) => e.getAttribute('data-edge') || e.getAttribute('data-node')).sort());
  assert.deepEqual(marked, ['CUSTOMER', 'CUSTOMER→ORDER', 'p']);
  const markdown = await page.evaluate(() => window.passback.exportAnswers(document.querySelector('.pb-doc')).markdown);
  for (const line of ['## Shop (diagram)', '- Node `CUSTOMER` — split the name?', '- Node `p` — which provider?', '- Edge `CUSTOMER→ORDER` — guests too?']) {
    assert.ok(markdown.includes(line), `${line} in:\n${markdown}`);
  }
  // Every relationship has a crow's-foot marker at each end.
  assert.equal(await page.locator('svg [data-edge] .pb-er-marker').count(), 2 * 4);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}`);
    await page.locator('.pb-diagram').first().screenshot({ path: join(OUT, `comments-${scheme}.png`) });
  }
  // The author's fill holds in the dark theme.
  assert.equal(await page.locator('svg [data-node="ADDRESS"] .pb-d-authored').first().getAttribute('fill'), '#fde68a');
  assert.deepEqual(problems, []);
  await page.close();
});
