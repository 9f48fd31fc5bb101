// The email surface at 600px, light and dark, screenshotted for a person to look at (written to
// target/screenshots, not committed); the pages must load nothing from anywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, renderedPage } from './harness.mjs';

const GOLDEN = join(ROOT, 'fixtures', 'golden');
let server;
before(async () => {
  server = await startServer();
  mkdirSync(SHOTS, { recursive: true });
});
after(() => server?.stop());

for (const scheme of ['light', 'dark']) {
  test(`email previews at 600px, ${scheme}`, async () => {
    const ctx = await browser({ javaScriptEnabled: false, colorScheme: scheme, viewport: { width: 600, height: 900 } });
    try {
      for (const file of readdirSync(GOLDEN).filter((f) => f.endsWith('.md')).sort()) {
        const url = await renderedPage(server, readFileSync(join(GOLDEN, file), 'utf8'),
          'format=page&surface=email&respond_url=https%3A%2F%2Fapp.example%2Fr%2F1');
        const page = await ctx.newPage();
        const requests = [];
        page.on('request', (r) => requests.push(r.url()));
        await page.goto(url);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 600, `${file}: the preview is ${width}px wide at a 600px viewport`);
        assert.deepEqual(requests, [url], `${file}: the email page loaded something else`);
        await page.screenshot({ path: join(SHOTS, `email-${file.replace(/\.md$/, '')}-${scheme}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await ctx.close();
    }
  });
}
