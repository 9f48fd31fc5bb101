// Hostile raw HTML in the prose, in real Chromium on the real server: an unclosed link and a
// forged "actions" row above a question. Clicking the question's options must not navigate,
// "Copy answers" must copy (its button stays in the engine's own row), and images spelled to
// load from another host (`/\host`, `\/host`, `/<tab>/host`) make no request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, browser, renderedPage, isForeign, watchConsole } from './harness.mjs';

const DOC = `Intro with a forged row: <a class="pb-actions pb-submit pb-copy" href="https://evil.example/captured">not ours</a>

<a href="https://evil.example/wrapped">

<img src="/\\evil.example/a.png" alt="a"> <img src="\\/evil.example/b.png" alt="b"> <img src="/&#9;/evil.example/c.png" alt="c">

<div id="pb-forged" data-pb-leaf="1"><section class="pb-block" data-pb-model="{}" data-pb-kind="allocate">forged</section>

\`\`\`single-choice
{"version":"1","question":"Which host serves the docs?","options":["Pages","Netlify"]}
\`\`\`

After the question.
`;

let server;
let ctx;
before(async () => {
  server = await startServer();
  ctx = await browser();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

test('hostile prose wraps no question, captures no button and loads nothing from elsewhere', async () => {
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  const foreign = [];
  page.on('request', (r) => {
    if (isForeign(server, r.url())) foreign.push(r.url());
  });
  const url = await renderedPage(server, DOC);
  await page.goto(url);
  await page.getByText('After the question.').waitFor();

  // The question's controls are in no link.
  assert.equal(await page.locator('a fieldset, a input, a label, a button').count(), 0);
  await page.getByLabel('Netlify').click();
  await page.getByLabel('Pages').click();
  assert.equal(page.url(), url, 'clicking an option navigated away');
  assert.equal(await page.getByLabel('Pages').isChecked(), true);

  // One actions row, the engine's, and the copy button is in it.
  assert.equal(await page.locator('.pb-actions').count(), 1);
  assert.equal(await page.locator('form.pb-form > .pb-actions .pb-copy').count(), 1);
  assert.equal(await page.locator('a.pb-copy, a.pb-submit, #pb-forged, [data-pb-model="{}"]').count(), 0);
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await page.getByRole('button', { name: 'Copy answers', exact: true }).click();
  await page.locator('.pb-copy-status').filter({ hasText: 'Answers copied to the clipboard.' }).waitFor();
  assert.equal(page.url(), url, '"Copy answers" navigated away');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /Pages/);

  assert.deepEqual(foreign, []);
  assert.deepEqual(problems, []);
  await page.close();
});
