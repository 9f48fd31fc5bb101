// Every golden diagram (fixtures/diagrams/*.mmd) drawn by the server and shown in Chromium,
// light and dark, screenshotted for a person to look at (target/screenshots/diagrams, not
// committed). Each box must be on screen with a real size, and no two boxes may overlap.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, renderedPage } from './harness.mjs';

const DIR = join(ROOT, 'fixtures', 'diagrams');
const OUT = join(SHOTS, 'diagrams');
let server;
before(async () => {
  server = await startServer();
  mkdirSync(OUT, { recursive: true });
});
after(() => server?.stop());

for (const scheme of ['light', 'dark']) {
  test(`golden diagrams in Chromium, ${scheme}`, async () => {
    const ctx = await browser({ colorScheme: scheme, viewport: { width: 900, height: 700 } });
    try {
      for (const file of readdirSync(DIR).filter((f) => f.endsWith('.mmd')).sort()) {
        const source = readFileSync(join(DIR, file), 'utf8');
        const doc = '```mermaid\n' + JSON.stringify({ version: '1', source, title: file.replace(/\.mmd$/, '') }) + '\n```\n';
        const page = await ctx.newPage();
        await page.goto(await renderedPage(server, doc));
        const figure = page.locator('.pb-diagram').first();
        await figure.screenshot({ path: join(OUT, `${file.replace(/\.mmd$/, '')}-${scheme}.png`) });
        const boxes = await page.$$eval('svg [data-node]', (nodes) => nodes.map((n) => {
          const r = n.getBoundingClientRect();
          return { id: n.getAttribute('data-node'), x: r.x, y: r.y, w: r.width, h: r.height };
        }));
        for (const b of boxes) assert.ok(b.w > 4 && b.h > 4, `${file}: box ${b.id} has no size`);
        const leaves = boxes.filter((b) => !boxes.some((o) => o !== b && o.x <= b.x && o.y <= b.y && o.x + o.w >= b.x + b.w && o.y + o.h >= b.y + b.h));
        for (const a of leaves) {
          for (const b of leaves) {
            if (a === b) continue;
            const overlap = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
            assert.ok(!overlap, `${file}: boxes ${a.id} and ${b.id} overlap`);
          }
        }
        await page.close();
      }
    } finally {
      await ctx.close();
    }
  });
}
