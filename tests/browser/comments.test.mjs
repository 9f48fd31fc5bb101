// Comments on the prose in real Chromium against the real server: a reader comments on a leaf
// with the keyboard, on a selected excerpt with the mouse, and on a leaf with a tap; takes a
// comment back with Escape and with its ✕; and "Copy answers" holds what the engine exports for
// the same comments sent as JSON. The page stays axe-clean and CSP-clean throughout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';
import { selectQuote } from './people.mjs';

const DOC = `# Moving the team wiki

We have outgrown the old wiki: search is slow, editing on a phone is painful, and nobody
trusts the *page history* any more.

\`\`\`single-choice
{ "version": "1", "question": "Which wiki do we move to?", "options": ["Notion", "Outline"] }
\`\`\`

- search speed
- mobile editing

| Tool | Cost |
|---|---:|
| Outline | \`$6\` |
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

/** The engine's export of `responses` for DOC. */
async function engineExport(responses) {
  const res = await fetch(`${server.url}/v1/answers`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/markdown' },
    body: JSON.stringify({ markdown: DOC, responses }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.text();
}

async function copied(page) {
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await page.keyboard.press('ControlOrMeta+Enter');
  await page.locator('.pb-copy-status').filter({ hasText: 'Answers copied to the clipboard.' }).waitFor();
  return page.evaluate(() => navigator.clipboard.readText());
}

test('comments by keyboard and by selection copy as the engine exports them', async () => {
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(await renderedPage(server, DOC));
  const leaves = await page.locator('[data-pb-leaf]').count();
  assert.equal(leaves, 6);
  assert.equal(await page.locator('.pb-leaf-comment').count(), leaves, 'a Comment button per leaf');

  // Keyboard: Tab from the heading's button reaches the paragraph's; Enter opens its comment.
  await page.locator('[data-pb-leaf="1"] + .pb-leaf-comment').focus();
  await page.keyboard.press('Tab');
  const button = page.getByRole('button', { name: 'Comment on “We have outgrown the old wiki: search is slow, editing on a phone is…”', exact: true });
  assert.ok(await button.evaluate((b) => b === document.activeElement), 'Tab reached the paragraph’s Comment button');
  assert.equal(await button.evaluate((b) => getComputedStyle(b).opacity), '1', 'shown on focus');
  await page.keyboard.press('Enter');
  const box = page.getByRole('textbox', { name: 'Comment on “We have outgrown the old wiki: search is slow, editing on a phone is…”', exact: true });
  assert.ok(await box.evaluate((b) => b === document.activeElement), 'focus is in the new comment');
  await page.keyboard.type('the phone part\nis the real reason');
  // Enter on the button again goes back to the same comment, not a second one.
  await button.focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('.pb-leaf-note').count(), 1);

  // Selection: the excerpt crosses the emphasis and a line break of the source.
  await page.locator('[data-pb-leaf="2"]').evaluate(selectQuote, 'nobody trusts the page history');
  const onSelection = page.getByRole('button', { name: 'Comment on the selection', exact: true });
  await onSelection.waitFor();
  assert.deepEqual(await axeViolations(page), [], 'axe with the selection button shown');
  await onSelection.click();
  await page.keyboard.type('true, and the audit needs it');
  assert.ok(await onSelection.isHidden(), 'the selection button goes once used');

  // A table row's button sits in its last cell; its comment goes after the table.
  await page.locator('[data-pb-leaf="6"]').hover();
  await page.getByRole('button', { name: 'Comment on “Outline $6”', exact: true }).click();
  await page.keyboard.type('cheap enough');
  assert.equal(await page.locator('table + .pb-leaf-note textarea').inputValue(), 'cheap enough');

  // Escape on an empty comment takes it back and returns to its button; ✕ removes one too.
  const item = page.getByRole('button', { name: 'Comment on “search speed”', exact: true });
  await item.focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  assert.ok(await item.evaluate((b) => b === document.activeElement), 'Escape went back to the button');
  await item.press('Enter');
  await page.keyboard.type('not this one');
  await page.getByRole('button', { name: 'Remove the comment on “search speed”', exact: true }).click();
  assert.ok(await item.evaluate((b) => b === document.activeElement), '✕ went back to the button');

  await page.locator('summary', { hasText: 'Comment on the whole document (optional)' }).click();
  await page.getByRole('textbox', { name: 'Comment on the whole document (optional)', exact: true }).fill('please decide before Friday');
  await page.getByRole('radio', { name: 'Outline', exact: true }).check();

  const expected = await engineExport({
    b1: { selected: ['Outline'] },
    annotations: [
      { leaf: 2, text: 'the phone part\nis the real reason' },
      { leaf: 2, quote: 'nobody trusts the page history', text: 'true, and the audit needs it' },
      { leaf: 6, text: 'cheap enough' },
      { text: 'please decide before Friday' },
    ],
  });
  assert.match(expected, /## Comments on the text\n\n- On "We have outgrown/);
  assert.equal(await copied(page), expected);
  assert.equal(await page.locator('.pb-commented').count(), 2, 'commented leaves are marked');
  assert.deepEqual(await axeViolations(page), [], 'axe with comments open');
  assert.deepEqual(problems, [], 'CSP violations or script errors');

  // The same form, posted: the server's export is the same.
  await Promise.all([
    page.waitForURL('**/v1/answers'),
    page.getByRole('button', { name: 'Get answers', exact: true }).click(),
  ]);
  assert.equal(await page.locator('#pb-export').inputValue(), expected);
  await page.close();
});

test('a tap on a leaf opens its comment, on a phone', async () => {
  const phone = await browser({ hasTouch: true, isMobile: true, viewport: { width: 390, height: 800 } });
  try {
    await phone.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await phone.newPage();
    await page.goto(await renderedPage(server, DOC));
    await page.getByRole('button', { name: 'Comment on “mobile editing”', exact: true }).tap();
    await page.keyboard.type('works on my phone');
    const expected = await engineExport({ annotations: [{ leaf: 4, text: 'works on my phone' }] });
    await page.getByRole('button', { name: 'Copy answers', exact: true }).tap();
    await page.locator('.pb-copy-status').filter({ hasText: 'Answers copied to the clipboard.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected);
    assert.deepEqual(await axeViolations(page), []);
  } finally {
    await phone.close();
  }
});
