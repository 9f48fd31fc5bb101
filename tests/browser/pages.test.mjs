// Every golden document as a served page in real Chromium: no axe violations of serious or
// critical impact (with the page's script running and with scripts blocked), no CSP violations,
// and the no-JavaScript form posts the answers the engine exports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer, browser, renderedPage, axeViolations, watchConsole, isForeign } from './harness.mjs';
import { fixture } from './people.mjs';

const GOLDEN = join(ROOT, 'fixtures', 'golden');
const docs = readdirSync(GOLDEN).filter((f) => f.endsWith('.md')).sort();
let server;
let ctx;

before(async () => {
  server = await startServer();
  ctx = await browser();
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

for (const file of docs) {
  for (const surface of ['page', 'routed']) {
    test(`${file} on ${surface}: accessible and CSP-clean`, async () => {
      const url = await renderedPage(server, readFileSync(join(GOLDEN, file), 'utf8'), `format=page&surface=${surface}`);
      const page = await ctx.newPage();
      const problems = watchConsole(page);
      const requests = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(url);
      assert.deepEqual(await axeViolations(page), [], 'axe: serious or critical violations');
      assert.deepEqual(problems, [], 'console: CSP violations or errors');
      const foreign = requests.filter((u) => isForeign(server, u));
      assert.deepEqual(foreign, [], 'the page contacted another origin');
      await page.close();
    });
  }
}

test('scripts blocked: the no-JavaScript rendering is accessible too', async () => {
  // axe never finishes with JavaScript disabled, so block the page's own scripts with a CSP
  // header instead and audit with JavaScript on (shared/BROWSER-TESTING.md).
  const page = await ctx.newPage();
  await page.route('**/v1/render/**', async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers(), 'content-security-policy': "script-src 'none'" };
    await route.fulfill({ response, headers });
  });
  for (const file of docs) {
    const url = await renderedPage(server, readFileSync(join(GOLDEN, file), 'utf8'));
    await page.goto(url);
    assert.deepEqual(await axeViolations(page), [], `${file}: axe with scripts blocked`);
  }
  await page.close();
});

test('JavaScript off: filling the form and pressing "Get answers" gives the engine export', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const { md: doc, expected } = fixture('questionnaire-spec');
    const page = await noJs.newPage();
    await page.goto(await renderedPage(server, doc));
    await page.getByLabel('Room number + PIN').check();
    const q2 = page.getByRole('group', { name: 'What is the data retention policy?' });
    await q2.getByRole('radio', { name: 'I need to check with:' }).check();
    await q2.getByRole('textbox', { name: 'I need to check with:' }).fill('legal team');
    await q2.locator('summary', { hasText: 'Add a note (optional)' }).click();
    await q2.getByRole('textbox', { name: 'Add a note (optional)' }).fill('confirm with DPO before launch');
    for (const label of ['Full name', 'Email', 'Estimated arrival time']) await page.getByLabel(label, { exact: true }).check();
    await page.getByRole('button', { name: 'Get answers' }).click();
    await page.waitForURL('**/v1/answers');
    assert.equal(await page.locator('#pb-export').inputValue(), expected);
  } finally {
    await noJs.close();
  }
});

test('JavaScript off: removing then restoring an item leaves the list as it was', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const doc = readFileSync(join(ROOT, 'examples', 'decision.md'), 'utf8');
    const page = await noJs.newPage();
    await page.goto(await renderedPage(server, doc));
    await page.getByRole('button', { name: 'Remove Export the old pages' }).click();
    await page.waitForURL('**/v1/answers');
    await page.getByRole('button', { name: 'Restore Export the old pages' }).click();
    await page.getByRole('button', { name: 'Remove Teaching people' }).click();
    await page.getByRole('button', { name: 'Restore Teaching people' }).click();
    await page.getByRole('button', { name: 'Get answers' }).click();
    const text = await page.locator('#pb-export').inputValue();
    assert.match(text, /## Migration order \(reader kept the order unchanged\)\n\n1\. Export the old pages/);
    assert.match(text, /## Where the hours go \(reader kept the allocation unchanged\)\n\n- Moving content: 40h \(unchanged\)/);
  } finally {
    await noJs.close();
  }
});

test('JavaScript off: choosing one position in its select moves that item there', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const doc = fixture('prioritize-spec').md;
    const page = await noJs.newPage();
    await page.goto(await renderedPage(server, doc));
    // Only APAC's select changes; EU's and US's still say 1 and 2.
    await page.getByLabel('Position of APAC').selectOption('1');
    await page.getByRole('button', { name: 'Get answers' }).click();
    await page.waitForURL('**/v1/answers');
    const text = await page.locator('#pb-export').inputValue();
    assert.match(text, /\n1\. APAC — needs localization first\n2\. EU — largest existing waitlist\n3\. US/);
  } finally {
    await noJs.close();
  }
});

test('JavaScript off: a prioritize move posts back the reordered form', async () => {
  const noJs = await browser({ javaScriptEnabled: false });
  try {
    const doc = fixture('prioritize-spec').md;
    const page = await noJs.newPage();
    await page.goto(await renderedPage(server, doc));
    const posting = (act) => Promise.all([page.waitForEvent('load'), act()]);
    await posting(() => page.getByRole('button', { name: 'Move APAC up' }).click());
    assert.match(page.url(), /\/v1\/answers$/);
    const order = await page.locator('.pb-rank-item .pb-rank-label').allTextContents();
    assert.deepEqual(order, ['EU', 'APAC', 'US']);
    // Focus comes back to the button the reader pressed, not the top of the page.
    const focused = () => page.evaluate(() => document.activeElement.getAttribute('aria-label'));
    assert.equal(await focused(), 'Move APAC up');
    const activate = () => page.evaluate(() => document.activeElement.click());
    await posting(activate);
    assert.deepEqual(await page.locator('.pb-rank-item .pb-rank-label').allTextContents(), ['APAC', 'EU', 'US']);
    assert.equal(await focused(), 'Move APAC down', 'at the top ▲ is disabled, so ▼');
    await posting(() => page.getByRole('button', { name: 'Remove EU' }).click());
    assert.equal(await focused(), 'Restore EU');
    await posting(activate);
    assert.equal(await focused(), 'Remove EU');
    // Restored to its authored place, first.
    assert.deepEqual(await page.locator('.pb-rank-item .pb-rank-label').allTextContents(), ['EU', 'APAC', 'US']);
    await page.getByRole('button', { name: 'Get answers' }).click();
    const text = await page.locator('#pb-export').inputValue();
    assert.match(text, /^Priority order \(reader reordered\) → Elad\n\n1\. EU — largest existing waitlist\n2\. APAC — needs localization first\n3\. US/);
  } finally {
    await noJs.close();
  }
});
