// Every golden diagram (fixtures/diagrams/*.mmd) drawn by the server and shown in Chromium,
// light and dark, screenshotted for a person to look at (target/screenshots/diagrams, not
// committed). Each box must be on screen with a real size, and no two boxes may overlap.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';

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

// Authors' colours (style, classDef, :::, linkStyle) are presentation attributes the stylesheet
// leaves alone: the same in light and dark, no CSP violation, and text that axe finds readable.
const STYLED = `flowchart LR
  classDef done fill:#237032,stroke:#1b5e20,color:#fff
  classDef failed fill:#c92a2a,stroke-width:3px
  A[Build]:::done --> B{Tests pass?}
  B -- yes --> C[Deploy]:::done
  B -- no --> D[Page the owner]:::failed
  subgraph S [Release]
    C --> E[Announce]
  end
  style E fill:#fff3bf,stroke:#e67700,stroke-dasharray:4 2
  style S fill:#e7f5ff
  linkStyle 2 stroke:#c92a2a,stroke-width:2px,color:#c92a2a`;

for (const scheme of ['light', 'dark']) {
  test(`authors' colours hold and stay readable, ${scheme}`, async () => {
    const ctx = await browser({ colorScheme: scheme, viewport: { width: 900, height: 700 } });
    try {
      const page = await ctx.newPage();
      const problems = watchConsole(page);
      const doc = '```mermaid\n' + JSON.stringify({ version: '1', source: STYLED, title: 'Release' }) + '\n```\n';
      const url = await renderedPage(server, doc);
      await page.goto(url);
      await page.locator('.pb-diagram').first().screenshot({ path: join(OUT, `authored-colours-${scheme}.png`) });
      const fills = await page.$$eval('svg [data-node]', (nodes) => Object.fromEntries(nodes.map((n) => {
        const shape = n.querySelector('.pb-d-authored:not(text)');
        const text = n.querySelector('text');
        return [n.getAttribute('data-node'), {
          fill: shape && getComputedStyle(shape).fill,
          text: text && getComputedStyle(text).fill,
        }];
      })));
      assert.equal(fills.A.fill, 'rgb(35, 112, 50)', JSON.stringify(fills));
      assert.equal(fills.A.text, 'rgb(255, 255, 255)');
      assert.equal(fills.D.fill, 'rgb(201, 42, 42)');
      assert.equal(fills.E.fill, 'rgb(255, 243, 191)');
      assert.equal(fills.S.fill, 'rgb(231, 245, 255)');
      const edge = await page.$eval('[data-edge="B→D"] .pb-d-line', (l) => getComputedStyle(l).stroke);
      assert.equal(edge, 'rgb(201, 42, 42)');
      assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}`);
      assert.deepEqual(problems, []);
      // As served (before any script runs): the SVG carries no style attribute.
      const served = await (await fetch(url)).text();
      const svg = served.slice(served.indexOf('<svg'), served.indexOf('</svg>'));
      assert.ok(svg.includes('pb-d-authored') && !/ style=/.test(svg), 'no style attribute');
      await page.close();
    } finally {
      await ctx.close();
    }
  });
}
