// What people write for GitHub, in real Chromium on the real server: a collapsible section whose
// Markdown body spans blank lines, a centred wrapper, an HTML table with blank lines between its
// parts, each alert kind and front matter. With JavaScript on and off, light and dark, phone and
// laptop: the body stays inside its <details> (which opens by keyboard), the alerts announce
// their kind, the front matter is nowhere, and axe finds nothing serious (with scripts on).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer, browser, renderedPage, axeViolations, watchConsole, sticksOut, isForeign, SHOTS } from './harness.mjs';

const DOC = `---
title: Moving the team wiki
owner: docs
---

<div align="center">

# Moving the team wiki

</div>

> [!NOTE]
> The vote closes on Friday.

> [!WARNING]
> Pages not moved by then are archived.

<details>
<summary>What we compared</summary>

- **Search** across spaces
- Page history

Read the comparison before you answer.

</details>

<table>

<tr>

<td>

**Confluence**

</td>

<td>

*Notion*

</td>

</tr>

</table>

\`\`\`single-choice
{"version":"1","question":"Which wiki do we move to?","options":["Confluence","Notion"]}
\`\`\`
`;

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

for (const javaScriptEnabled of [true, false]) {
  test(`GitHub idioms render as on GitHub (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
    const url = await renderedPage(server, DOC);
    for (const colorScheme of ['light', 'dark']) {
      for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
        const ctx = await browser({ javaScriptEnabled, colorScheme, viewport });
        try {
          const page = await ctx.newPage();
          const problems = watchConsole(page);
          await page.goto(url);
          assert.equal(await page.title(), 'Moving the team wiki');
          assert.equal(await page.getByText('owner: docs').count(), 0, 'front matter shown');

          // The collapsible section holds its Markdown body, closed until opened by keyboard.
          const details = page.locator('details:has(> summary:text("What we compared"))');
          assert.equal(await details.count(), 1);
          assert.equal(await details.locator('li strong', { hasText: 'Search' }).count(), 1);
          assert.equal(await details.getByText('Read the comparison before you answer.').count(), 1);
          assert.equal(await page.getByText('Read the comparison before you answer.').isVisible(), false);
          await details.locator('summary').focus();
          await page.keyboard.press('Enter');
          await page.getByText('Read the comparison before you answer.').waitFor({ state: 'visible' });

          // The centred heading and the table cells keep their Markdown.
          assert.equal(await page.locator('div[align="center"] h1', { hasText: 'Moving the team wiki' }).count(), 1);
          assert.equal(await page.locator('td strong', { hasText: 'Confluence' }).count(), 1);
          assert.equal(await page.locator('td em', { hasText: 'Notion' }).count(), 1);

          // Each alert's kind is the first thing read in it, and its marker is gone.
          for (const [kind, word] of [['note', 'Note'], ['warning', 'Warning']]) {
            const alert = page.locator(`.pb-alert-${kind}`);
            assert.equal((await alert.locator('.pb-alert-title').innerText()).trim(), word);
          }
          assert.equal(await page.getByText('[!NOTE]').count(), 0);

          // The question after all of it still works.
          await page.getByRole('radio', { name: 'Notion' }).check();
          assert.equal(await page.getByRole('radio', { name: 'Notion' }).isChecked(), true);

          // axe and the layout check run in the page, so only where scripts run (the page's
          // markup and styles are the same either way).
          if (javaScriptEnabled) {
            assert.deepEqual(await axeViolations(page), []);
            assert.deepEqual(await sticksOut(page, '.pb-doc'), []);
          }
          assert.deepEqual(problems, []);
          const dir = join(SHOTS, 'github');
          mkdirSync(dir, { recursive: true });
          await page.screenshot({
            path: join(dir, `${javaScriptEnabled ? 'js' : 'nojs'}-${colorScheme}-${viewport.width}.png`),
            fullPage: true,
          });
        } finally {
          await ctx.close();
        }
      }
    }
  });
}

// The conformance corpus (fixtures/github-readmes/): every real README and docs page in it, each
// on its own page as the server renders it, passes axe. No request leaves the machine: images
// from the web are answered with a 1×1 PNG.
const CORPUS = join(ROOT, 'fixtures', 'github-readmes');
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

test('axe finds nothing on the pages of the GitHub README corpus', async () => {
  const names = readdirSync(CORPUS).filter((f) => f.endsWith('.md') && f !== 'SOURCE.md').sort();
  assert.ok(names.length >= 40, `${names.length} documents`);
  const ctx = await browser({ viewport: { width: 1280, height: 800 } });
  try {
    await ctx.route('**/*', async (route) => {
      if (isForeign(server, route.request().url())) {
        await route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL });
      } else {
        await route.continue();
      }
    });
    const found = [];
    for (const name of names) {
      const url = await renderedPage(server, readFileSync(join(CORPUS, name), 'utf8'));
      const page = await ctx.newPage();
      try {
        await page.goto(url);
        for (const v of await axeViolations(page)) found.push(`${name}: ${v}`);
      } finally {
        await page.close();
      }
    }
    assert.deepEqual(found, []);
  } finally {
    await ctx.close();
  }
});
