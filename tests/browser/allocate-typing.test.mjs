// A weight typed into an allocate field, in real Chromium, with JavaScript on and off: the same
// typing must mean the same thing both ways (docs/decisions.md, "Allocate: a typed weight").
// A person clicks the field, types and tabs away; with the script the export comes from "Copy
// answers" and from "Get answers" (the form posted), without it from "Get answers".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';
import { ANSWERS, fixture } from './people.mjs';

const RAISED = fixture('allocate-raised-one-kept');
// The fixture's document, 50/30/20, with 2·10^15 typed into the 50% row.
const OVER_CAP = { md: readFileSync(join(ANSWERS, 'reject-typed-weight-over-cap-shown.md'), 'utf8') };
const HUGE = '2000000000000000';
// The decode's words for it: the server's 422 names the field with them, and so does the script.
const REFUSAL = `b1 w.0: the weight of "Product" must be a number from 0 to 10^15, not "${HUGE}"`;
// The same words beside the field, without the field's name.
const BESIDE_FIELD = `The weight of "Product" must be a number from 0 to 10^15, not "${HUGE}".`;

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

/** Types `text` into the field labelled `label` as a person does: click, select all, type, Tab. */
async function typeWeight(page, label, text) {
  const field = page.getByRole('spinbutton', { name: label, exact: true });
  await field.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Tab');
  return field;
}

const weights = (page) => page.locator('.pb-weight').evaluateAll((fields) => fields.map((f) => f.value));

/** "Get answers": the server's export, or its refusal. */
async function getAnswers(page) {
  await Promise.all([page.waitForURL('**/v1/answers'), page.getByRole('button', { name: 'Get answers', exact: true }).click()]);
  const exported = page.locator('#pb-export');
  if (await exported.count()) return { markdown: await exported.inputValue() };
  return { refused: JSON.parse(await page.locator('body').textContent()).detail };
}

/** "Copy answers": what the clipboard got and what the status line says. */
async function copyAnswers(page) {
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  const status = page.locator('.pb-copy-status');
  await status.evaluate((s) => { s.textContent = ''; }); // what an earlier copy said
  await page.getByRole('button', { name: 'Copy answers', exact: true }).click();
  await status.filter({ hasText: /\S/ }).waitFor();
  return { status: await status.textContent(), clipboard: await page.evaluate(() => navigator.clipboard.readText()) };
}

test('60 typed into the 50% row of 50/30/20 is 60%, with JavaScript and without', async () => {
  // Without JavaScript: the form posts 60 beside the 50 the page showed; the others take the rest.
  const plain = await noJs.newPage();
  await plain.goto(await renderedPage(server, RAISED.md));
  await typeWeight(plain, 'Product (%)', '60');
  assert.deepEqual(await getAnswers(plain), { markdown: RAISED.expected });
  await plain.close();

  // With it: the typing is applied on Tab, and Copy answers and the posted form agree.
  const page = await js.newPage();
  const problems = watchConsole(page);
  await page.goto(await renderedPage(server, RAISED.md));
  await typeWeight(page, 'Product (%)', '60');
  assert.deepEqual(await weights(page), ['60', '24', '16']);
  assert.deepEqual(await page.locator('input[name^="b1.was."]').evaluateAll((f) => f.map((x) => x.value)), ['60', '24', '16'],
    'what the page shows now');
  assert.deepEqual(await copyAnswers(page), { status: 'Answers copied to the clipboard.', clipboard: RAISED.expected });
  assert.deepEqual(problems, []);
  assert.deepEqual(await getAnswers(page), { markdown: RAISED.expected });
  await page.close();

  // Typed and sent at once (Get answers before the field is left): the same.
  const quick = await js.newPage();
  await quick.goto(await renderedPage(server, RAISED.md));
  await quick.getByRole('spinbutton', { name: 'Product (%)', exact: true }).fill('60');
  assert.deepEqual(await getAnswers(quick), { markdown: RAISED.expected });
  await quick.close();
});

test('a weight over 10^15 is refused in the same words, with JavaScript and without', async () => {
  const plain = await noJs.newPage();
  await plain.goto(await renderedPage(server, OVER_CAP.md));
  await typeWeight(plain, 'Product (%)', HUGE);
  assert.deepEqual(await getAnswers(plain), { refused: `The answers do not fit the document: ${REFUSAL}.` });
  await plain.close();

  const page = await js.newPage();
  const problems = watchConsole(page);
  const url = await renderedPage(server, OVER_CAP.md);
  await page.goto(url);
  const field = await typeWeight(page, 'Product (%)', HUGE);
  // Not applied: the reader's text stays, the split does not move, and the field says why.
  assert.deepEqual(await weights(page), [HUGE, '30', '20']);
  assert.deepEqual(await page.locator('.pb-range').evaluateAll((r) => r.map((x) => x.value)), ['50', '30', '20']);
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.equal(await field.evaluate((f) => f.validationMessage), BESIDE_FIELD);
  const error = page.locator('.pb-weight-error');
  assert.equal(await error.textContent(), BESIDE_FIELD);
  assert.ok((await field.getAttribute('aria-describedby')).split(' ').includes(await error.getAttribute('id')));
  assert.equal((await page.locator('.pb-live').textContent()).trim(), BESIDE_FIELD);
  // Copy answers refuses as the decode does, and copies nothing.
  assert.deepEqual(await copyAnswers(page), { status: REFUSAL, clipboard: '(empty)' });
  // The form is not sent while the field holds it.
  await page.getByRole('button', { name: 'Get answers', exact: true }).click();
  await page.waitForTimeout(300);
  assert.equal(page.url(), url);
  assert.deepEqual(await axeViolations(page), []);
  // Fixed: the message goes, and the weight is applied as typed.
  await typeWeight(page, 'Product (%)', '60');
  assert.equal(await error.count(), 0);
  assert.equal(await field.getAttribute('aria-invalid'), null);
  assert.equal(await field.evaluate((f) => f.validationMessage), '');
  assert.deepEqual(await copyAnswers(page), { status: 'Answers copied to the clipboard.', clipboard: RAISED.expected });
  assert.deepEqual(problems, []);
  await page.close();
});
