// The XSS corpus in real Chromium: every vector, on every surface, loaded from the real server
// under its real CSP. No dialog may open and no request may leave the page's origin: the server
// runs with the strictest image policy (`--images same-origin`), so an image from the web is a
// request no vector may cause. (The default policy's web images are github.test.mjs's.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer, browser, renderedPage, isForeign } from './harness.mjs';

const DIR = join(ROOT, 'fixtures', 'xss');
let server;
let ctx;
before(async () => {
  server = await startServer(['--images', 'same-origin']);
  ctx = await browser();
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

for (const surface of ['page', 'routed', 'email']) {
  test(`no vector runs or phones home on the ${surface} surface`, async () => {
    const failures = [];
    for (const file of readdirSync(DIR).filter((f) => f.endsWith('.md')).sort()) {
      const url = await renderedPage(server, readFileSync(join(DIR, file), 'utf8'), `format=page&surface=${surface}`);
      const page = await ctx.newPage();
      page.on('dialog', async (d) => {
        failures.push(`${file}: a ${d.type()} dialog opened`);
        await d.dismiss();
      });
      page.on('request', (r) => {
        const u = r.url();
        if (isForeign(server, u)) failures.push(`${file}: request to ${u}`);
      });
      await page.goto(url);
      // Give timers, lazy handlers and focus handlers a moment, and poke the page a little.
      await page.mouse.move(100, 100);
      await page.keyboard.press('Tab');
      await page.waitForTimeout(50);
      await page.close();
    }
    assert.deepEqual(failures, []);
  });
}
