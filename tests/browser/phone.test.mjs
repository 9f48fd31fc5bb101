// The page on a phone: at 320, 360 and 375 px, with the script running and without, nothing is
// wider than the viewport, so the reader never scrolls sideways to reach a control.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, renderedPage, sticksOut } from './harness.mjs';

const WIDTHS = [320, 360, 375];
const DOCS = [
  ['examples/decision.md', join(ROOT, 'examples', 'decision.md')],
  // Right to left: an overflow would stick out on the left.
  ['golden/arabic.md', join(ROOT, 'fixtures', 'golden', 'arabic.md')],
];
let server;

before(async () => {
  server = await startServer();
  mkdirSync(join(SHOTS, 'phone'), { recursive: true });
});
after(() => server?.stop());

for (const js of [true, false]) {
  test(`JavaScript ${js ? 'on' : 'off'}: no horizontal overflow at phone widths`, async () => {
    const ctx = await browser({ javaScriptEnabled: js, viewport: { width: WIDTHS[0], height: 800 } });
    try {
      for (const [name, path] of DOCS) {
        const url = await renderedPage(server, readFileSync(path, 'utf8'));
        for (const width of WIDTHS) {
          const page = await ctx.newPage();
          await page.setViewportSize({ width, height: 800 });
          await page.goto(url);
          if (js) await page.waitForFunction(() => window.passback);
          const where = `${name} at ${width}px, JavaScript ${js ? 'on' : 'off'}`;
          if (width === WIDTHS[0]) {
            const shot = `${name.replace(/\W+/g, '-')}-${width}-${js ? 'js' : 'nojs'}.png`;
            await page.screenshot({ path: join(SHOTS, 'phone', shot), fullPage: true });
          }
          assert.deepEqual(await sticksOut(page), [], `${where}: elements outside the viewport`);
          const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
          assert.ok(scroll <= inner, `${where}: the page is ${scroll}px wide`);
          await page.close();
        }
      }
    } finally {
      await ctx.close();
    }
  });
}
