// Times mermaid.js drawing the bench's diagrams in the browser tests' Chromium: each source
// given on stdin as JSON `{ "NAME": "source", … }`, `mermaid.render` forty times, the first ten
// dropped as warm-ups; prints the fastest and the median of the rest, per source.
//
//   (the sources: `passback_benches::class(5)`, … written out as JSON)
//   MERMAID_JS=/tmp/mmd/node_modules/mermaid/dist/mermaid.min.js node benches/mermaid-js-time.mjs < /tmp/sources.json
import { readFileSync } from 'node:fs';
import { browser } from '../tests/browser/harness.mjs';

const MERMAID = process.env.MERMAID_JS;
if (!MERMAID) {
  console.error('set MERMAID_JS to mermaid.min.js (npm install --prefix /tmp/mmd mermaid@11)');
  process.exit(2);
}
const sources = JSON.parse(readFileSync(0, 'utf8'));
const ctx = await browser({ viewport: { width: 1400, height: 900 } });
const page = await ctx.newPage();
await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
await page.addScriptTag({ path: MERMAID });
for (const [name, source] of Object.entries(sources)) {
  const times = await page.evaluate(async (src) => {
    window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    const out = [];
    for (let k = 0; k < 40; k++) {
      const t0 = performance.now();
      const { svg } = await window.mermaid.render(`m${k}`, src);
      document.getElementById('out').innerHTML = svg;
      out.push(performance.now() - t0);
    }
    return out.slice(10);
  }, source);
  times.sort((a, b) => a - b);
  console.log(`${name}: fastest ${times[0].toFixed(1)} ms, median ${times[Math.floor(times.length / 2)].toFixed(1)} ms`);
}
await ctx.close();
