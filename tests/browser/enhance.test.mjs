// The enhanced documents in real Chromium against the real server. For every answers fixture a
// person fills the form in by label and role (keyboard, buttons, selects, dragging), then
// (a) with JavaScript on presses "Copy answers" (or Ctrl/Cmd-Enter) and the clipboard must hold
// the engine's export, and (b) with JavaScript off presses "Get answers" and the server's answers
// page must show the same. The enhanced pages are audited with axe and watched for CSP
// violations and foreign requests while they are used.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startServer, browser, renderedPage, axeViolations, watchConsole, isForeign } from './harness.mjs';
import { ANSWERS, CHROME, fixture, fillIn, leafComments } from './people.mjs';

const names = readdirSync(ANSWERS).filter((f) => f.endsWith('.responses.json')).map((f) => f.slice(0, -'.responses.json'.length))
  .filter((n) => !n.startsWith('reject-')).sort();
const STYLES = ['buttons', 'keyboard', 'select', 'drag'];
let server;
let js;
let noJs;

before(async () => {
  server = await startServer();
  js = await browser();
  await js.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  noJs = await browser({ javaScriptEnabled: false });
});
after(async () => {
  await js?.close();
  await noJs?.close();
  server?.stop();
});

names.forEach((name, n) => {
  const style = STYLES[n % STYLES.length];
  test(`${name}: JavaScript on (${style}), Copy answers gives the engine's export`, async () => {
    const fx = fixture(name);
    const page = await js.newPage();
    const problems = watchConsole(page);
    const foreign = [];
    page.on('request', (r) => { if (isForeign(server, r.url())) foreign.push(r.url()); });
    await page.goto(await renderedPage(server, fx.md));
    await fillIn(page, fx, { js: true, style });
    const t = CHROME[await page.locator('.pb-doc').getAttribute('lang')];
    await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
    if (n % 2) await page.getByRole('button', { name: t.copy, exact: true }).click();
    else await page.keyboard.press('ControlOrMeta+Enter');
    const status = page.locator('.pb-copy-status');
    if (fx.expected === '') {
      await assert.doesNotReject(status.filter({ hasText: /\S/ }).waitFor());
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '(empty)', 'nothing copied');
    } else {
      await status.filter({ hasText: t.copied }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), fx.expected);
    }
    assert.deepEqual(await axeViolations(page), [], 'axe on the filled-in page');
    assert.deepEqual(problems, [], 'CSP violations or script errors');
    assert.deepEqual(foreign, [], 'requests to other origins');
    await page.close();
  });

  // Without the script a reader comments on the whole document only.
  test(`${name}: JavaScript off, Get answers gives the engine's export`, { skip: leafComments(fixture(name)) }, async () => {
    const fx = fixture(name);
    const page = await noJs.newPage();
    await page.goto(await renderedPage(server, fx.md));
    await fillIn(page, fx, { js: false });
    const t = CHROME[await page.locator('.pb-doc').getAttribute('lang')];
    await Promise.all([page.waitForURL('**/v1/answers'), page.getByRole('button', { name: t.get, exact: true }).click()]);
    if (fx.expected === '') assert.match(await page.locator('main').textContent(), /Nothing was answered yet/);
    else assert.equal(await page.locator('#pb-export').inputValue(), fx.expected);
    await page.close();
  });
});
