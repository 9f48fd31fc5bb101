// The enhanced widgets in real Chromium, for what jsdom cannot show: YouTube click-to-load on the
// routed surface (and silence on the page surface), touch and mouse dragging, a diagram shape as
// a comment target, the print rendering, the strict CSP while everything is used, and
// screenshots of every component, light and dark, left-to-right and right-to-left, written to
// target/screenshots/enhanced for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';
import { fixture } from './people.mjs';

const EN = `# Launch decisions

A few things are still open before guests can check in from their phones.

\`\`\`single-choice
{ "version": "1", "question": "Which sign-in ships in v1?", "options": ["Magic link", "Room number + PIN"], "recommended": "Magic link" }
\`\`\`

\`\`\`multi-choice
{ "version": "1", "question": "Which languages at launch?", "options": ["English", "Hebrew", "Arabic"], "recommended": ["English", "Hebrew"] }
\`\`\`

\`\`\`open-question
{ "version": "1", "question": "How long may we keep a passport scan?", "placeholder": "e.g. 30 days after checkout" }
\`\`\`

\`\`\`questionnaire
{ "version": "1", "title": "Operations", "questions": [
  { "id": "q1", "section": "On call", "question": "Who owns the pager?", "options": ["Platform", "Product"] },
  { "id": "q2", "section": "On call", "question": "When do we go live?", "options": [], "open_field": { "label": "Date:" } } ] }
\`\`\`

\`\`\`prioritize
{ "version": "1", "title": "Rollout order", "items": [ { "id": "eu", "label": "EU", "context": "largest waitlist" }, { "id": "us", "label": "US" }, { "id": "apac", "label": "APAC" } ] }
\`\`\`

\`\`\`allocate
{ "version": "1", "title": "Capacity", "items": [ { "id": "p", "label": "Product", "weight": 50 }, { "id": "g", "label": "Growth", "weight": 30 }, { "id": "i", "label": "Infrastructure", "weight": 20 } ] }
\`\`\`

\`\`\`youtube
{ "version": "1", "id": "dQw4w9WgXcQ", "title": "The check-in screen, a tour" }
\`\`\`

\`\`\`mermaid
{ "version": "1", "source": "graph TD; A[Paste] --> B[Review] --> C[Copy back];", "title": "The review loop" }
\`\`\`
`;

const HE = `# החלטות לפני ההשקה

נשארו כמה שאלות פתוחות לפני שהאורחים יוכלו לעשות צ'ק-אין מהטלפון.

\`\`\`single-choice
{ "version": "1", "question": "איזו שיטת כניסה תהיה בגרסה הראשונה?", "options": ["קישור קסם", "מספר חדר וקוד"], "recommended": "קישור קסם" }
\`\`\`

\`\`\`multi-choice
{ "version": "1", "question": "באילו שפות נתמוך בהשקה?", "options": ["עברית", "ערבית", "אנגלית"], "recommended": ["עברית", "ערבית"] }
\`\`\`

\`\`\`open-question
{ "version": "1", "question": "כמה זמן מותר לשמור סריקת דרכון?", "placeholder": "למשל שלושים יום אחרי העזיבה" }
\`\`\`

\`\`\`questionnaire
{ "version": "1", "title": "תפעול", "questions": [
  { "id": "q1", "section": "תורנות", "question": "מי מחזיק את הביפר?", "options": ["צוות התשתיות", "צוות המוצר"] },
  { "id": "q2", "section": "תורנות", "question": "מתי עולים לאוויר?", "options": [], "open_field": { "label": "תאריך:" } } ] }
\`\`\`

\`\`\`prioritize
{ "version": "1", "title": "סדר הפריסה", "items": [ { "id": "eu", "label": "אירופה", "context": "רשימת ההמתנה הגדולה ביותר" }, { "id": "us", "label": "ארצות הברית" }, { "id": "apac", "label": "אסיה" } ] }
\`\`\`

\`\`\`allocate
{ "version": "1", "title": "חלוקת הקיבולת", "items": [ { "id": "p", "label": "מוצר", "weight": 50 }, { "id": "g", "label": "צמיחה", "weight": 30 }, { "id": "i", "label": "תשתיות", "weight": 20 } ] }
\`\`\`

\`\`\`youtube
{ "version": "1", "id": "dQw4w9WgXcQ", "title": "סיור במסך הצ'ק-אין" }
\`\`\`

\`\`\`mermaid
{ "version": "1", "source": "graph TD; A[הדבקה] --> B[סקירה] --> C[העתקה בחזרה];", "title": "לולאת הסקירה" }
\`\`\`
`;

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

/** A page that records CSP violations (the securitypolicyviolation event and the console). */
async function open(url, context = ctx) {
  const page = await context.newPage();
  const problems = watchConsole(page);
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Refused to ${e.violatedDirective}: ${e.blockedURI}`));
  });
  await page.goto(url);
  return { page, problems };
}

test('YouTube on routed: nothing from YouTube until Play, then the nocookie player; on page never', async () => {
  const youtube = [];
  for (const surface of ['page', 'routed']) {
    const { page, problems } = await open(await renderedPage(server, EN, `format=page&surface=${surface}`));
    await page.route(/youtube/, (route) => {
      youtube.push([surface, route.request().url()]);
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>player</title>' });
    });
    const play = page.getByRole('button', { name: 'Play: The check-in screen, a tour (YouTube)' });
    if (surface === 'page') {
      assert.equal(await play.count(), 0, 'no play button on the page surface');
      await page.locator('.pb-yt-facade').click();
      await page.waitForTimeout(200);
      assert.deepEqual(youtube, [], 'the page surface never contacts YouTube');
    } else {
      await page.waitForTimeout(200);
      assert.deepEqual(youtube, [], 'nothing before the click');
      await play.press('Enter');
      const frame = page.locator('iframe[title="The check-in screen, a tour"]');
      await frame.waitFor();
      assert.equal(await frame.getAttribute('src'), 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1');
      await page.waitForTimeout(300);
      assert.ok(youtube.length > 0 && youtube.every(([, u]) => u.startsWith('https://www.youtube-nocookie.com/')), JSON.stringify(youtube));
    }
    assert.deepEqual(problems, [], 'CSP clean (frame-src allows the nocookie player on routed)');
    await page.close();
  }
});

test('prioritize: a touch drag by the grip reorders and announces', async () => {
  const touch = await browser({ hasTouch: true, viewport: { width: 400, height: 900 } });
  try {
    const doc = fixture('prioritize-spec').md;
    const { page, problems } = await open(await renderedPage(server, doc), touch);
    const rows = page.locator('.pb-rank-item');
    const grip = await rows.nth(2).locator('.pb-grip').boundingBox();
    const top = await rows.nth(0).boundingBox();
    const cdp = await touch.newCDPSession(page);
    const x = grip.x + grip.width / 2;
    let y = grip.y + grip.height / 2;
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
    for (; y > top.y + 2; y -= 10) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: top.y + 2 }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    assert.deepEqual(await page.locator('.pb-rank-label').allTextContents(), ['APAC', 'EU', 'US']);
    assert.equal((await page.locator('.pb-live').textContent()).trim(), 'APAC moved to position 1 of 3');
    assert.deepEqual(await page.locator('.pb-rank select').evaluateAll((s) => s.map((x) => `${x.name}=${x.value}`)),
      ['b1.pos.0=1', 'b1.pos.1=2', 'b1.pos.2=3']);
    assert.deepEqual(problems, []);
  } finally {
    await touch.close();
  }
});

test('prioritize: keyboard moves keep focus on the moved item', async () => {
  const doc = fixture('prioritize-spec').md;
  const { page } = await open(await renderedPage(server, doc));
  const up = page.getByRole('button', { name: 'Move US up' });
  await up.focus();
  await page.keyboard.press('Enter');
  assert.deepEqual(await page.locator('.pb-rank-label').allTextContents(), ['US', 'EU', 'APAC']);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Move US up');
  await page.keyboard.press('Alt+ArrowDown');
  await page.keyboard.press('Alt+ArrowDown');
  assert.deepEqual(await page.locator('.pb-rank-label').allTextContents(), ['EU', 'APAC', 'US']);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Move US up');
  assert.equal((await page.locator('.pb-live').textContent()).trim(), 'US moved to position 3 of 3');
  await page.close();
});

test('mermaid: clicking a shape of the drawn diagram comments on that node', async () => {
  const fx = fixture('mermaid-node-comment');
  const { page, problems } = await open(await renderedPage(server, fx.md));
  // The engine's own SVG: its node groups are the targets.
  const responses = fx.responses.b1.comments;
  const target = page.locator(`svg [data-node="${responses[0].id}"]`);
  assert.equal(await target.getAttribute('role'), 'button');
  assert.equal(await page.locator('[data-pb-kind="mermaid"] svg').first().getAttribute('role'), 'group');
  await target.click();
  await page.keyboard.type(responses[0].text);
  const marks = (await target.getAttribute('class')).split(' ').filter((c) => !c.startsWith('pb-d-')).sort();
  assert.deepEqual(marks, ['pb-commented', 'pb-selected', 'pb-target']);
  assert.equal(await page.evaluate(() => window.passback.exportAnswers(document.querySelector('.pb-doc')).markdown),
    fx.expected);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('mermaid: each edge of a repeated pair opens its own comment field', async () => {
  const doc = '```mermaid\n{"version": "1", "source": "graph TD\\nA -->|yes| B\\nA -->|again| B"}\n```\n';
  const { page, problems } = await open(await renderedPage(server, doc));
  await page.locator('svg [data-edge="A→B#2"]').click();
  assert.equal(await page.evaluate(() => document.activeElement.name), 'b1.edge.1');
  await page.locator('svg [data-edge="A→B"]').click();
  assert.equal(await page.evaluate(() => document.activeElement.name), 'b1.edge.0');
  assert.deepEqual(problems, []);
  await page.close();
});

test('print shows the current answers', async () => {
  const doc = fixture('prioritize-spec').md;
  const { page } = await open(await renderedPage(server, doc));
  await page.getByRole('button', { name: 'Move APAC up' }).click();
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await page.emulateMedia({ media: 'print' });
  const printed = page.locator('.pb-print');
  assert.ok(await printed.isVisible());
  assert.match(await printed.textContent(), /Priority order \(reader reordered\) → Elad\n\n1\. EU — largest existing waitlist\n2\. APAC/);
  assert.equal(await page.getByRole('button', { name: 'Copy answers' }).isVisible(), false, 'no buttons on paper');
  mkdirSync(join(SHOTS, 'enhanced'), { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'enhanced', 'print-prioritize.png'), fullPage: true });
  await page.emulateMedia({ media: 'screen' });
  assert.equal(await printed.isVisible(), false);
  await page.close();
});

for (const [dir, doc] of [['ltr', EN], ['rtl', HE]]) {
  for (const scheme of ['light', 'dark']) {
    test(`screenshots of every component, ${dir}, ${scheme}; axe and CSP clean while used`, async () => {
      const { page, problems } = await open(await renderedPage(server, doc, 'format=page&surface=routed'));
      await page.emulateMedia({ colorScheme: scheme });
      assert.equal(await page.locator('.pb-doc').getAttribute('dir'), dir);
      // A little of everything in use: a choice, Other typed, an item removed, a remainder.
      await page.locator('[data-pb-kind="single-choice"] input[type=radio]').first().check();
      await page.locator('[data-pb-kind="multi-choice"] .pb-other-text').fill(dir === 'rtl' ? 'צרפתית' : 'French');
      await page.locator('[data-pb-kind="prioritize"] .pb-remove').nth(1).click();
      const slider = page.locator('[data-pb-kind="allocate"] .pb-range').first();
      await slider.focus();
      for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowDown');
      await page.locator('[data-pb-kind="mermaid"] details.pb-diagram-parts summary').click();
      await page.locator('.pb-copy').click();
      await page.locator('.pb-copy-status').filter({ hasText: /\S/ }).waitFor();
      assert.deepEqual(await axeViolations(page), [], 'axe');
      assert.deepEqual(problems, [], 'CSP');
      const out = join(SHOTS, 'enhanced');
      mkdirSync(out, { recursive: true });
      const blocks = page.locator('[data-pb-kind]');
      for (let i = 0; i < await blocks.count(); i++) {
        const kind = await blocks.nth(i).getAttribute('data-pb-kind');
        await blocks.nth(i).screenshot({ path: join(out, `${kind}-${dir}-${scheme}.png`) });
      }
      await page.screenshot({ path: join(out, `document-${dir}-${scheme}.png`), fullPage: true });
      await page.close();
    });
  }
}
