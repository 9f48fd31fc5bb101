// Ten flowcharts, ten state diagrams, ten ER diagrams, ten class diagrams and ten gantt charts
// of Mermaid's own documentation and tests and of public repositories (fixtures/mermaid-flowcharts/,
// fixtures/mermaid-state/, fixtures/mermaid-er/, fixtures/mermaid-class/, fixtures/mermaid-gantt/),
// drawn by the engine and by mermaid.js
// in the same Chromium, side by side, one screenshot each in
// target/screenshots/mermaid-compare (not committed) for a person to compare. mermaid.js is
// not a dependency: with `npm install --no-save mermaid@11` this runs, without it it skips.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, renderedPage } from './harness.mjs';

// `MERMAID_JS=…/mermaid.min.js` points at a copy installed elsewhere.
const MERMAID = process.env.MERMAID_JS || join(ROOT, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
const OUT = join(SHOTS, 'mermaid-compare');
const FLOWCHARTS = ['flowchart-86', 'flowchart-381', 'flowchart-1360', 'flowchart-1455', 'flowchart-1485',
  'flowchart-1543', 'flowchart-1581', 'flowchart-1623', 'flowchart-1700', 'flowchart-1728'];
const STATES = ['docs-stateDiagram-17', 'docs-stateDiagram-90', 'docs-stateDiagram-166', 'docs-stateDiagram-202',
  'docs-stateDiagram-242', 'docs-stateDiagram-288', 'docs-stateDiagram-310', 'docs-stateDiagram-344',
  'docs-stateDiagram-370', 'docs-stateDiagram-413'];
const ERS = ['docs-entityRelationshipDiagram-16', 'docs-entityRelationshipDiagram-42',
  'docs-entityRelationshipDiagram-283', 'docs-entityRelationshipDiagram-491', 'docs-entityRelationshipDiagram-585',
  'erDiagram-327', 'demo-er-21', 'idealjs-chao-feng-docs-er-2', 'codymurphyjones-repstracker-old-README-117',
  'codymurphyjones-repstracker-old-migration-migration_notes-11'];
const CLASSES = ['docs-classDiagram-18', 'docs-classDiagram-87', 'docs-classDiagram-248', 'docs-classDiagram-317',
  'docs-classDiagram-345', 'docs-classDiagram-452', 'docs-classDiagram-534', 'docs-classDiagram-706',
  'docs-classDiagram-887', 'demo-classchart-209'];
const GANTTS = ['docs-gantt-26', 'docs-gantt-52', 'docs-gantt-198', 'docs-gantt-230', 'docs-gantt-420',
  'docs-gantt-646', 'demo-gantt-48', 'demo-gantt-111', 'gantt-9', 'MatthijsKamstra-fonkee-issues-data-planning_2021.csv.converted-3'];
const corpus = (dir) => JSON.parse(readFileSync(join(ROOT, 'fixtures', dir, 'corpus.json'), 'utf8'));

let server;
before(async () => {
  if (!existsSync(MERMAID)) return;
  server = await startServer();
  mkdirSync(OUT, { recursive: true });
});
after(() => server?.stop());

/** Each of `names` from `dir`'s corpus drawn by the engine (its SVG of class `kind`) and by
 * mermaid.js, side by side. */
async function compare(dir, names, kind, theirs = '#theirs g.node') {
  const entries = corpus(dir);
  const ctx = await browser({ viewport: { width: 1400, height: 900 } });
  try {
    for (const name of names) {
      const entry = entries.find((d) => d.name === name);
      assert.ok(entry, `${name} is in the corpus`);
      const doc = '```mermaid\n' + JSON.stringify({ version: '1', source: entry.source, title: name }) + '\n```\n';
      const ours = await ctx.newPage();
      await ours.goto(await renderedPage(server, doc));
      const svg = await ours.locator('.pb-diagram-canvas svg').evaluate((s) => s.outerHTML);
      await ours.close();
      assert.ok(svg.includes(kind), `${name}: drawn by the engine`);

      const page = await ctx.newPage();
      await page.setContent(`<!doctype html><html><body style="margin:0;font-family:sans-serif">
        <div style="display:grid;grid-template-columns:1fr 1fr;gap:16px;padding:12px">
          <section><h2 style="font-size:16px">passback-render</h2><div id="ours">${svg}</div></section>
          <section><h2 style="font-size:16px">mermaid.js</h2><div id="theirs"></div></section>
        </div>
        <pre style="margin:12px;font-size:11px">${entry.source.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c])}</pre>
      </body></html>`);
      await page.addStyleTag({ path: join(ROOT, 'engine', 'assets', 'passback.css') });
      await page.addScriptTag({ path: MERMAID });
      const drawn = await page.evaluate(async ({ source, selector }) => {
        window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
        const { svg } = await window.mermaid.render('theirs-svg', source);
        document.getElementById('theirs').innerHTML = svg;
        return document.querySelectorAll(selector).length;
      }, { source: entry.source, selector: theirs });
      assert.ok(drawn > 0, `${name}: drawn by mermaid.js`);
      const boxes = await page.locator('#ours [data-node]').count();
      assert.ok(boxes > 0, `${name}: the engine's drawing has boxes`);
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
      await page.close();
    }
  } finally {
    await ctx.close();
  }
}

const skip = !existsSync(MERMAID) && 'mermaid is not installed (npm install --no-save mermaid@11)';
test('ten of Mermaid\'s flowcharts beside mermaid.js\'s drawing', { skip }, () =>
  compare('mermaid-flowcharts', FLOWCHARTS, 'pb-mermaid-flowchart'));
test('ten of Mermaid\'s state diagrams beside mermaid.js\'s drawing', { skip }, () =>
  compare('mermaid-state', STATES, 'pb-mermaid-state'));
test('ten ER diagrams beside mermaid.js\'s drawing', { skip }, () =>
  compare('mermaid-er', ERS, 'pb-mermaid-er'));
test('ten class diagrams beside mermaid.js\'s drawing', { skip }, () =>
  compare('mermaid-class', CLASSES, 'pb-mermaid-class'));
test('ten gantt charts beside mermaid.js\'s drawing', { skip }, () =>
  compare('mermaid-gantt', GANTTS, 'pb-mermaid-gantt', '#theirs rect[class*="task"]'));
