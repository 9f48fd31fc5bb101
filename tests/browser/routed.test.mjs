// The routed loop in real Chromium, on both stores: a sender routes examples/decision.md with
// POST /v1/documents; a reader opens the review link and answers by role and label, once with
// the script running and once with JavaScript off (moving and removing list items by form post
// first); the sender pulls both submissions, with a long-poll that is waiting when the reader
// sends; each send lands on its receipt (Post/Redirect/Get), whose "Edit your response" opens the
// form filled in, and the reader changes an answer there and sends again. axe audits the review
// page and the receipt, script on and off, and screenshots of both at 1280 and 375 px go to
// target/screenshots/routed for a person to look at.
//
// PostgreSQL is found through PASSBACK_TEST_POSTGRES (default
// postgres://postgres@127.0.0.1:5432/test), as in server/tests/store.rs: the test makes a schema
// of its own with psql and drops it after. PASSBACK_TEST_POSTGRES=off skips that test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, axeViolations, watchConsole, isForeign, sticksOut } from './harness.mjs';

const DOC = readFileSync(join(ROOT, 'examples', 'decision.md'), 'utf8');
// The review page's submit button: on the routed surface the answers go to the sender.
const SEND = 'Send answers';
const SENT = 'Your answers were sent';

// ---------------------------------------------------------------------------------------------
// The sender's side, over HTTP

async function route(server) {
  const res = await fetch(`${server.url}/v1/documents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ markdown: DOC, expires_in: 3600 }),
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.equal(res.headers.get('location'), `/v1/documents/${body.id}`);
  assert.equal(body.review_url, `${server.url}/r/${body.id}`);
  assert.deepEqual(body.diagnostics, []);
  return body;
}

/** GET /v1/documents/{id}/responses with the token; `query` such as `?since=2&wait=30`. */
async function pull(server, doc, query = '') {
  const res = await fetch(`${server.url}/v1/documents/${doc.id}/responses${query}`, {
    headers: { authorization: `Bearer ${doc.token}` },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(body.document.id, doc.id);
  return body.responses;
}

/**
 * Starts a long-poll for the responses after `since` and returns { settled, done }: `settled()`
 * says whether it has answered yet, `done` is its promise.
 */
function longPoll(server, doc, since) {
  let answered = false;
  const done = pull(server, doc, `?since=${since}&wait=30`).finally(() => { answered = true; });
  done.catch(() => {}); // a test that fails first stops the server under it; its own error counts
  return { settled: () => answered, done };
}

/** The export the stateless /v1/answers gives the document with these componentInputs. */
async function exportOf(server, componentInputs) {
  const res = await fetch(`${server.url}/v1/answers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ markdown: DOC, responses: componentInputs }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return text;
}

// ---------------------------------------------------------------------------------------------
// The reader's side, in the browser

/** Clicks a submit button of the page's form and waits for the page the post answers with. */
async function post(page, name) {
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name, exact: true }).click()]);
}

/**
 * The receipt a send lands on: its own address (a reload sends nothing), its heading, the answers
 * drawn under "Your answers", and the export as sent (the text "Copy answers" copies).
 */
async function sentExport(page, id) {
  assert.match(page.url(), new RegExp(`/r/${id}/sent\\?n=[0-9]+&k=[A-Za-z0-9_-]+$`));
  await page.getByRole('heading', { name: SENT, level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Your answers', level: 2 }).waitFor();
  return page.locator('#pb-export').textContent();
}

/**
 * axe on the rendering a JavaScript-off browser got: axe cannot run with JavaScript disabled, so
 * the page's HTML is served again, at the server's origin (its stylesheet loads as before), to a
 * browser with JavaScript on, under a CSP that blocks the page's own script.
 */
async function axeWithoutScript(jsCtx, server, html, captured = 'form.pb-form') {
  const page = await jsCtx.newPage();
  const at = `${server.url}/r/axe-audit-of-a-no-script-page`;
  await page.route(at, (r) => r.fulfill({
    status: 200,
    contentType: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': "script-src 'none'" },
    body: html,
  }));
  await page.goto(at);
  assert.equal(await page.locator(captured).count(), 1, 'the audited page is the one captured');
  assert.equal(await page.evaluate(() => document.querySelector('.pb-enhanced') === null), true,
    'the page script stayed off');
  const found = await axeViolations(page);
  await page.close();
  return found;
}

/** axe's heading rules, whatever their impact: levels that skip, and a page without an h1. */
async function headingOrder(page) {
  await page.evaluate(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'rule', values: ['heading-order', 'page-has-heading-one', 'empty-heading'] },
    resultTypes: ['violations'],
  }));
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Screenshots of the whole page at 1280 and 375 px wide; `name` such as `review-js`. */
async function shoot(page, dir, name) {
  if (!dir) return;
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    if (width === 375) assert.deepEqual(await sticksOut(page, 'main'), [], `${name}: wider than a 375 px screen`);
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

// ---------------------------------------------------------------------------------------------
// The loop

const group = (page, name) => page.getByRole('group', { name, exact: true });

async function theLoop(storeArgs, { shots } = {}) {
  const server = await startServer(storeArgs);
  const jsCtx = await browser({ viewport: { width: 1280, height: 900 } });
  const noJsCtx = await browser({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  const dir = shots ? join(SHOTS, 'routed') : null;
  if (dir) mkdirSync(dir, { recursive: true });
  try {
    const doc = await route(server);

    // -- With the script: the first submission, while a long-poll waits for it.
    const first = longPoll(server, doc, 0);
    const page = await jsCtx.newPage();
    const problems = watchConsole(page);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const review = await page.goto(doc.review_url);
    assert.equal(review.status(), 200);
    assert.equal(review.headers()['cache-control'], 'no-store');
    assert.equal(review.headers()['referrer-policy'], 'no-referrer');
    assert.deepEqual(await axeViolations(page), [], 'axe on the review page, script on');

    await page.getByRole('radio', { name: 'Self-hosted' }).check();
    const where = group(page, 'Which wiki do we move to?');
    await where.locator('summary', { hasText: 'Add a note (optional)' }).click();
    await where.getByRole('textbox', { name: 'Add a note (optional)' }).fill('we already patch the CI hosts');
    await page.getByRole('checkbox', { name: 'Runbooks' }).check();
    await page.getByRole('checkbox', { name: 'Design notes' }).check();
    await page.getByLabel('Which week suits the cut-over?').fill('the week of 14 September');
    await group(page, 'Who may create new spaces?').getByRole('radio', { name: 'Team leads' }).check();
    const stale = group(page, 'What happens to pages nobody opened in a year?');
    await stale.getByRole('radio', { name: 'Something else:' }).check();
    await stale.getByRole('textbox', { name: 'Something else:' }).fill('ask each space owner');
    await page.getByRole('textbox', { name: 'Owner:' }).fill('Platform team');
    await page.getByRole('button', { name: 'Move Recreate permissions up' }).click();
    await page.getByRole('spinbutton', { name: 'Teaching people (h)' }).fill('25');
    await page.getByRole('button', { name: 'Comment on box “Permissions”' }).click();
    await page.getByRole('textbox', { name: 'Comment on box “Permissions”' }).fill('copy the groups, not the people');
    await shoot(page, dir, 'review-js');

    assert.equal(first.settled(), false, 'the long-poll waits until something is sent');
    await post(page, SEND);
    const jsExport = await sentExport(page, doc.id);
    assert.match(jsExport, /\*\*Q: Which wiki do we move to\?\*\*\nAnswer: Self-hosted\nNote: we already patch the CI hosts/);
    assert.match(jsExport, /1\. Export the old pages — takes about two days\n2\. Recreate permissions — needs the access answers above\n3\. Fix internal links/);
    const polled = await first.done;
    assert.deepEqual(polled.map((r) => r.response_id), [1], 'the waiting long-poll answers with the response');
    assert.equal(polled[0].export, jsExport);
    assert.deepEqual(await axeViolations(page), [], 'axe on the receipt, script on');
    assert.deepEqual(await headingOrder(page), [], 'the receipt\'s headings, in order');
    await shoot(page, dir, 'sent-js');

    // -- Without JavaScript: list edits post the form back and keep nothing; then the second.
    const plain = await noJsCtx.newPage();
    await plain.goto(doc.review_url);
    assert.deepEqual(await axeWithoutScript(jsCtx, server, await plain.content()), [], 'axe on the review page, script off');
    await plain.getByRole('radio', { name: 'Managed plan' }).check();
    await plain.getByRole('checkbox', { name: 'Onboarding' }).check();
    await plain.getByLabel('Which week suits the cut-over?').fill('the last week of September');
    await post(plain, 'Move Short training session up');
    // The page comes back with the move made and the answers given so far.
    assert.deepEqual(await plain.locator('.pb-prioritize .pb-rank-label').allTextContents(),
      ['Export the old pages', 'Fix internal links', 'Short training session', 'Recreate permissions']);
    assert.equal(await plain.getByRole('radio', { name: 'Managed plan' }).isChecked(), true);
    assert.equal(await plain.getByLabel('Which week suits the cut-over?').inputValue(), 'the last week of September');
    await post(plain, 'Remove Fix internal links');
    await plain.getByRole('button', { name: 'Restore Fix internal links' }).waitFor();
    await group(plain, 'Which sign-in do we require?').getByRole('radio', { name: 'SSO plus a hardware key' }).check();
    // Two weights typed (one raised alone would keep its value: allocate-typing.test.mjs).
    await plain.getByRole('spinbutton', { name: 'Moving content (h)' }).fill('50');
    await plain.getByRole('spinbutton', { name: 'Teaching people (h)' }).fill('20');
    await plain.getByRole('textbox', { name: 'Your name (optional)' }).fill('Noa Levi');
    await shoot(plain, dir, 'review-nojs');
    assert.deepEqual((await pull(server, doc)).map((r) => r.response_id), [1], 'a list edit keeps nothing');
    await post(plain, SEND);
    const plainExport = await sentExport(plain, doc.id);
    assert.match(plainExport, /Answer: Managed plan\n/);
    assert.match(plainExport, /- Moving content: 42h \(was 40h\)\n- Tidying and archiving: 21h \(was 25h\) — the stale half\n- Teaching people: 17h \(was 15h\)\n\nTotal: 80h/);
    // 95 h typed for 80: rescaled, and the reader is told, the block named by its title.
    assert.match(await plain.getByRole('note').first().textContent(), /^“Where the hours go”: .*rescaled to 80h/);
    assert.match(plainExport, /1\. Export the old pages — takes about two days\n2\. Short training session\n3\. Recreate permissions — needs the access answers above\n\nRemoved by reader: Fix internal links/);
    assert.deepEqual(await axeWithoutScript(jsCtx, server, await plain.content(), 'div.pb-receipt'), [], 'axe on the receipt, script off');
    await shoot(plain, dir, 'sent-nojs');
    // "Edit your response": the form again, filled in, the name too.
    await Promise.all([plain.waitForEvent('load'), plain.getByRole('link', { name: 'Edit your response' }).click()]);
    assert.equal(await plain.getByRole('textbox', { name: 'Your name (optional)' }).inputValue(), 'Noa Levi',
      'the name is filled in again to send again');
    assert.equal(await plain.getByRole('radio', { name: 'Managed plan' }).isChecked(), true);

    // -- The sender pulls both, with what each page showed.
    const both = await pull(server, doc);
    assert.deepEqual(both.map((r) => r.response_id), [1, 2]);
    assert.equal(both[0].export, jsExport);
    assert.equal(both[1].export, plainExport);
    assert.deepEqual(both.map((r) => r.reviewer), [null, 'Noa Levi'], 'the optional name, as given');
    for (const r of both) {
      assert.deepEqual(r.annotations, []);
      assert.match(r.received_at, /Z$/);
      // What is kept as componentInputs reads back to the same export.
      assert.equal(await exportOf(server, r.componentInputs), r.export);
    }
    // The answers as contract §4 JSON, keyed by block id (the video takes none).
    const { b6: jsWeights, ...jsRest } = both[0].componentInputs;
    assert.deepEqual(jsRest, {
      b1: { selected: ['Self-hosted'], note: 'we already patch the CI hosts' },
      b2: { selected: ['Runbooks', 'Design notes'] },
      b3: { text: 'the week of 14 September' },
      b4: { questions: { q1: { selected: ['Team leads'] }, q3: { other: 'ask each space owner' }, q4: { other: 'Platform team' } } },
      b5: { order: ['export', 'perms', 'links', 'train'] },
      b8: { comments: [{ on: 'node', id: 'C', text: 'copy the groups, not the people' }] },
    });
    // The script rebalances the other sliders when one moves; the total stays 80.
    assert.equal(jsWeights.weights.teach, 25);
    assert.equal(Object.values(jsWeights.weights).reduce((a, b) => a + b), 80);
    assert.deepEqual(both[1].componentInputs, {
      b1: { selected: ['Managed plan'] },
      b2: { selected: ['Onboarding'] },
      b3: { text: 'the last week of September' },
      b4: { questions: { q2: { selected: ['SSO plus a hardware key'] } } },
      b5: { order: ['export', 'train', 'perms'], removed: ['links'] },
      // As typed: the export rescales them to the total and says so.
      b6: { weights: { move: 50, tidy: 25, teach: 20 } },
    });

    // -- Changed and sent again from the receipt's "Edit your response": a third submission, the
    // first two kept.
    const third = longPoll(server, doc, 2);
    await page.goBack();
    await page.goForward();
    assert.deepEqual((await pull(server, doc)).map((r) => r.response_id), [1, 2], 'back to the receipt sends nothing');
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Edit your response' }).click()]);
    await page.getByRole('radio', { name: 'Stay where we are' }).check();
    assert.equal(third.settled(), false, 'the long-poll waits until something is sent');
    await post(page, SEND);
    const againExport = await sentExport(page, doc.id);
    assert.match(againExport, /Answer: Stay where we are\nNote: we already patch the CI hosts/);
    assert.equal(againExport.replace('Stay where we are', 'Self-hosted'), jsExport, 'the rest as sent the first time');
    const last = await third.done;
    assert.deepEqual(last.map((r) => r.response_id), [3]);
    assert.equal(last[0].export, againExport);
    // The edit link's form carried every other answer of the first submission.
    assert.deepEqual(last[0].componentInputs, { ...both[0].componentInputs, b1: { ...both[0].componentInputs.b1, selected: ['Stay where we are'] } });
    assert.deepEqual((await pull(server, doc)).map((r) => r.response_id), [1, 2, 3]);

    assert.deepEqual(problems, [], 'console: CSP violations or errors');
    assert.deepEqual(requests.filter((u) => isForeign(server, u)), [], 'the page contacted another origin');
  } finally {
    await jsCtx.close();
    await noJsCtx.close();
    server.stop();
  }
}

test('the routed loop on SQLite: route, answer in the browser with and without JavaScript, pull, send again', async () => {
  const dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-routed-'));
  try {
    await theLoop(['--store', `sqlite:${join(dir, 'routed.db')}`], { shots: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const PG = process.env.PASSBACK_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432/test';
const pgSkip = PG === 'off' && 'PASSBACK_TEST_POSTGRES=off: skipping the routed loop on PostgreSQL';

function psql(sql) {
  try {
    execFileSync('psql', [PG, '-qAtc', sql], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new Error(`psql ${PG} -c '${sql}' failed (${String(e.stderr || e.message).trim()}): start PostgreSQL `
      + '(scripts/test does), point PASSBACK_TEST_POSTGRES at one, or set PASSBACK_TEST_POSTGRES=off to skip');
  }
}

test('the routed loop on PostgreSQL, in a schema of its own', { skip: pgSkip }, async () => {
  const schema = `passback_browser_${process.pid}`;
  psql(`CREATE SCHEMA ${schema}`);
  try {
    const join_ = PG.includes('?') ? '&' : '?';
    await theLoop(['--store', `${PG}${join_}options=-csearch_path%3D${schema}`]);
  } finally {
    psql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
});

test('a Hebrew document: the review page and the receipt speak its language, right to left', async () => {
  const dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-routed-he-'));
  const server = await startServer(['--store', `sqlite:${join(dir, 'routed.db')}`]);
  const ctx = await browser({ javaScriptEnabled: false });
  try {
    const markdown = '# החלטה על שרת\n\nאיפה נארח את הוויקי?\n\n```single-choice\n'
      + '{ "version": "1", "question": "איפה נארח?", "options": ["בענן", "אצלנו"] }\n```\n';
    const res = await fetch(`${server.url}/v1/documents`, {
      method: 'POST', headers: { 'content-type': 'text/markdown' }, body: markdown,
    });
    const doc = await res.json();
    assert.equal(res.status, 201, JSON.stringify(doc));
    const page = await ctx.newPage();
    await page.goto(doc.review_url);
    await page.getByRole('radio', { name: 'אצלנו' }).check();
    await page.getByRole('textbox', { name: 'השם שלך (לא חובה)' }).fill('נועה');
    await post(page, 'שליחת התשובות');
    await page.getByRole('heading', { name: 'התשובות שלך נשלחו', level: 1 }).waitFor();
    assert.deepEqual(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir, document.title]),
      ['he', 'rtl', 'התשובות שלך נשלחו']);
    await page.getByRole('link', { name: 'עריכת התשובה שלך' }).waitFor();
    await page.getByRole('heading', { name: 'התשובות שלך', level: 2 }).waitFor();
    assert.match(await page.locator('.pb-receipt-summary').textContent(), /אצלנו/);
    assert.equal(await page.getByText('Your answers were sent').count(), 0, 'no English chrome');
    const pulled = await fetch(`${server.url}/v1/documents/${doc.id}/responses`, {
      headers: { authorization: `Bearer ${doc.token}` },
    }).then((r) => r.json());
    assert.equal(pulled.responses[0].reviewer, 'נועה');
  } finally {
    await ctx.close();
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a closed document: the review page says so at the top and offers no way to send, script on and off', async () => {
  const dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-routed-closed-'));
  const server = await startServer(['--store', `sqlite:${join(dir, 'routed.db')}`]);
  const jsCtx = await browser({ viewport: { width: 1280, height: 900 } });
  const noJsCtx = await browser({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  const shots = join(SHOTS, 'routed');
  mkdirSync(shots, { recursive: true });
  const setStatus = async (doc, status) => {
    const res = await fetch(`${server.url}/v1/documents/${doc.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${doc.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.status, status);
  };
  try {
    const doc = await route(server);
    await setStatus(doc, 'closed');

    // With the script: the notice first, the document readable, no "Send answers" and no name
    // field; "Copy answers" still copies what the reader filled in.
    const page = await jsCtx.newPage();
    const problems = watchConsole(page);
    const review = await page.goto(doc.review_url);
    assert.equal(review.status(), 200);
    const notice = page.getByRole('status').filter({ hasText: 'This document is closed.' });
    await notice.waitFor();
    assert.equal(await page.evaluate(() => {
      const n = document.querySelector('.pb-closed');
      const d = document.querySelector('.pb-doc');
      return Boolean(n && d && (n.compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING));
    }), true, 'the notice comes before the document');
    await page.getByRole('radio', { name: 'Self-hosted' }).check();
    assert.equal(await page.getByRole('button', { name: SEND }).count(), 0);
    assert.equal(await page.getByRole('textbox', { name: 'Your name (optional)' }).count(), 0);
    await page.getByRole('button', { name: 'Copy answers', exact: true }).waitFor();
    // Enter in a text field sends nothing and leaves nothing.
    await page.getByLabel('Which week suits the cut-over?').fill('soon');
    await page.getByLabel('Which week suits the cut-over?').press('Enter');
    assert.equal(page.url(), doc.review_url);
    assert.deepEqual(await axeViolations(page), [], 'axe on the closed review page, script on');
    await shoot(page, shots, 'closed-js');
    assert.deepEqual(problems, [], 'console: CSP violations or errors');

    // Without JavaScript: the same notice, no button to send; the form cannot post.
    const plain = await noJsCtx.newPage();
    await plain.goto(doc.review_url);
    await plain.getByText('This document is closed.').waitFor();
    assert.equal(await plain.getByRole('button', { name: SEND }).count(), 0);
    assert.equal(await plain.locator('form.pb-form[action]').count(), 0);
    await plain.getByLabel('Which week suits the cut-over?').fill('soon');
    await plain.getByLabel('Which week suits the cut-over?').press('Enter');
    assert.equal(plain.url(), doc.review_url);
    await shoot(plain, shots, 'closed-nojs');

    // Reopened: the page takes answers again.
    await setStatus(doc, 'open');
    await page.goto(doc.review_url);
    await page.getByRole('button', { name: SEND, exact: true }).waitFor();
    assert.equal(await page.getByText('This document is closed.').count(), 0);
  } finally {
    await jsCtx.close();
    await noJsCtx.close();
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
