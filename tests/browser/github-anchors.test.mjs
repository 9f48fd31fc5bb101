// More of what people write for GitHub, in real Chromium on the real server: in-page links to
// headings (ids as GitHub makes them, repeats numbered), task lists whose boxes are named by
// their items, emoji shortcodes, and images from the web under the default image policy (https from any host,
// loaded lazily, sending no referrer, allowed by the page's CSP). With JavaScript on and off;
// axe finds nothing serious.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const DOC = `# Release notes

![Build status](https://img.example/badge.png)

Jump to [the second install](#install-1) or [the plan](#plan). Shipped :tada: (type \`:tada:\`).

## Install

Run the installer.

## Plan

- [x] Write the notes
- [ ] Tag the *release*

${'Filler paragraph.\n\n'.repeat(40)}
## Install

The same heading again, for the other platform.

\`\`\`single-choice
{"version":"1","question":"Ship on Friday?","options":["Yes","No"]}
\`\`\`
`;

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

for (const javaScriptEnabled of [true, false]) {
  test(`anchors, task lists and web images (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
    const url = await renderedPage(server, DOC);
    const ctx = await browser({ javaScriptEnabled, viewport: { width: 1280, height: 800 } });
    try {
      const images = [];
      await ctx.route('https://img.example/**', async (route) => {
        images.push({ url: route.request().url(), referer: route.request().headers().referer });
        await route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
      });
      const page = await ctx.newPage();
      const problems = watchConsole(page);
      await page.goto(url);

      // The badge loads from its host, told not to say which page it is on.
      const badge = page.getByRole('img', { name: 'Build status' });
      await badge.waitFor();
      await page.waitForFunction(() => document.querySelector('img[alt="Build status"]').complete);
      assert.equal(await badge.evaluate((i) => i.naturalWidth), 1);
      assert.equal(await badge.getAttribute('referrerpolicy'), 'no-referrer');
      assert.equal(await badge.getAttribute('loading'), 'lazy');
      assert.deepEqual(images, [{ url: 'https://img.example/badge.png', referer: undefined }]);

      // Headings carry GitHub's ids; the link to the repeated one lands on the second.
      assert.deepEqual(
        await page.locator('h1[id], h2[id]').evaluateAll((hs) => hs.map((h) => h.id)),
        ['release-notes', 'install', 'plan', 'install-1'],
      );
      await page.getByRole('link', { name: 'the second install' }).click();
      await page.waitForFunction(() => location.hash === '#install-1');
      assert.equal(await page.evaluate(() => document.querySelector(':target')?.textContent), 'Install');
      const inView = await page.evaluate(() => {
        const r = document.getElementById('install-1').getBoundingClientRect();
        return r.top >= 0 && r.top < window.innerHeight;
      });
      assert.equal(inView, true, 'the linked heading is scrolled into view');

      // A shortcode is its emoji in prose, and stays as typed in code.
      assert.equal(await page.getByText('Shipped 🎉 (type').count(), 1);
      assert.equal(await page.locator('code', { hasText: ':tada:' }).count(), 1);

      // Each task box is named by its item, and keeps its state.
      assert.equal(await page.getByRole('checkbox', { name: 'Write the notes' }).isChecked(), true);
      assert.equal(await page.getByRole('checkbox', { name: 'Tag the release' }).isChecked(), false);

      if (javaScriptEnabled) {
        assert.deepEqual(await axeViolations(page), []);
      }
      assert.deepEqual(problems, []);
    } finally {
      await ctx.close();
    }
  });
}

// The strictest policy: the badge is a link to the image, nothing is fetched from its host,
// and the page's CSP would refuse it anyway.
test('with --images same-origin nothing loads from the web', async () => {
  const strict = await startServer(['--images', 'same-origin']);
  const ctx = await browser();
  try {
    const url = await renderedPage(strict, DOC);
    const fetched = [];
    await ctx.route('https://img.example/**', async (route) => {
      fetched.push(route.request().url());
      await route.abort();
    });
    const page = await ctx.newPage();
    await page.goto(url);
    assert.equal(await page.getByRole('img', { name: 'Build status' }).count(), 0);
    assert.equal(
      await page.getByRole('link', { name: 'Build status' }).getAttribute('href'),
      'https://img.example/badge.png',
    );
    assert.deepEqual(fetched, []);
  } finally {
    await ctx.close();
    strict.stop();
  }
});
