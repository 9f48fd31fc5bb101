// The email surface at 600px and 360px (a phone), light and dark, screenshotted for a person to
// look at (written to target/screenshots, not committed); the pages must load nothing from
// anywhere, never scroll sideways, and in dark mode the clients that honour the style block get
// dark cards.
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

const EMAIL = join(ROOT, 'fixtures', 'email');
const documents = [
  ...readdirSync(GOLDEN).filter((f) => f.endsWith('.md')).sort().map((f) => join(GOLDEN, f)),
  ...readdirSync(EMAIL).filter((f) => f.endsWith('.md') && f !== 'README.md').sort().map((f) => join(EMAIL, f)),
  join(ROOT, 'examples', 'decision.md'),
];

for (const width of [600, 360]) {
  for (const scheme of ['light', 'dark']) {
    test(`email previews at ${width}px, ${scheme}`, async () => {
      const ctx = await browser({ javaScriptEnabled: false, colorScheme: scheme, viewport: { width, height: 900 } });
      try {
        for (const path of documents) {
          const file = path.split('/').pop();
          const url = await renderedPage(server, readFileSync(path, 'utf8'),
            'format=page&surface=email&respond_url=https%3A%2F%2Fapp.example%2Fr%2F1');
          const page = await ctx.newPage();
          const requests = [];
          page.on('request', (r) => requests.push(r.url()));
          await page.goto(url);
          const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scroll <= width, `${file}: the preview is ${scroll}px wide at a ${width}px viewport`);
          assert.deepEqual(requests, [url], `${file}: the email page loaded something else`);
          const card = await page.evaluate(() => {
            const c = document.querySelector('.pb-card');
            return c && getComputedStyle(c).backgroundColor;
          });
          if (card) {
            const dark = card === 'rgb(22, 27, 34)';
            assert.equal(dark, scheme === 'dark', `${file}: a ${scheme} card is ${card}`);
          }
          await page.screenshot({ path: join(SHOTS, `email-${file.replace(/\.md$/, '')}-${width}-${scheme}.png`), fullPage: true });
          await page.close();
        }
      } finally {
        await ctx.close();
      }
    });
  }
}
