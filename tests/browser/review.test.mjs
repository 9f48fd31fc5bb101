// The review page as a reader meets it, in real Chromium, with the script on and off: an intro
// that says what the page is and what Send does, Send as the one primary action, progress with
// the script, option rows that take a tap anywhere and controls at least 44 × 44 px on a phone;
// nothing lost (unanswered questions and an empty "Other" are said, linked, and kept out of the
// store until the reader sends anyway or fixes them); nothing doubled (a double click, a reload
// of the receipt); and the receipt itself. axe audits each page in light and dark; screenshots
// of the review page and the receipt, light and dark, at 1280 and 375 px, go to
// target/screenshots/review for a person to look at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SHOTS, startServer, browser, axeViolations, watchConsole, sticksOut } from './harness.mjs';

const DOC = readFileSync(join(ROOT, 'examples', 'decision.md'), 'utf8');
const SEND = 'Send answers';
const DIR = join(SHOTS, 'review');

async function withServer(run) {
  const dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-review-'));
  const server = await startServer(['--store', `sqlite:${join(dir, 'review.db')}`]);
  try {
    await run(server);
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function route(server) {
  const res = await fetch(`${server.url}/v1/documents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ markdown: DOC, expires_in: 3600 }),
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body;
}

async function responses(server, doc) {
  const res = await fetch(`${server.url}/v1/documents/${doc.id}/responses`, {
    headers: { authorization: `Bearer ${doc.token}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()).responses;
}

/** Clicks a button (or link) and waits for the page it leads to. */
async function follow(page, role, name) {
  await Promise.all([page.waitForEvent('load'), page.getByRole(role, { name, exact: true }).click()]);
}

/** Screenshots of the whole page, light and dark, at 1280 and 375 px; axe on each. */
async function shootBoth(page, name) {
  mkdirSync(DIR, { recursive: true });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      if (width === 375) assert.deepEqual(await sticksOut(page, 'main'), [], `${name}: wider than a 375 px screen`);
      assert.deepEqual(await axeViolations(page), [], `axe on ${name}, ${scheme}, ${width} px`);
      await page.screenshot({ path: join(DIR, `${name}-${scheme}-${width}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The boxes (width × height, CSS px) of the visible elements matching `selector`. */
function boxes(page, selector) {
  return page.evaluate((selector) => [...document.querySelectorAll(selector)]
    .map((el) => ({ el, box: el.getBoundingClientRect() }))
    .filter(({ box }) => box.width > 0 && box.height > 0)
    .map(({ el, box }) => ({
      what: `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.getAttribute('aria-label') || el.textContent).trim().slice(0, 30)}"`,
      width: Math.round(box.width * 10) / 10,
      height: Math.round(box.height * 10) / 10,
    })), selector);
}

test('the review page: an intro, Send as the primary action, progress, rows that take a tap, 44 px targets on a phone', async () => {
  await withServer(async (server) => {
    const doc = await route(server);
    const ctx = await browser({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await ctx.newPage();
      const problems = watchConsole(page);
      await page.goto(doc.review_url);
      // The intro: what it is, how many questions, until when, what Send does.
      const intro = page.getByRole('region', { name: 'About this review' });
      await intro.waitFor();
      const said = await intro.textContent();
      // The document opens with its own h1: the intro does not say the title again.
      assert.doesNotMatch(said, /Moving the team wiki/);
      assert.equal(await page.getByText('Moving the team wiki', { exact: true }).count(), 1);
      assert.equal(await page.getByRole('heading', { name: 'Moving the team wiki', level: 1 }).count(), 1);
      assert.match(said, /6 questions · open until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
      assert.match(said, /your answers go to the person who sent you this link; you can change them later/);

      // A long page has a way through: links to each question.
      await intro.locator('summary', { hasText: 'Go to a question' }).click();
      assert.deepEqual(await intro.getByRole('link').allTextContents(), [
        'Which wiki do we move to?', 'Which spaces move in the first batch?', 'Which week suits the cut-over?',
        'Migration details', 'Migration order', 'Where the hours go',
      ]);
      await intro.getByRole('link', { name: 'Where the hours go' }).click();
      assert.match(page.url(), /#pb-[0-9a-f]+-b6-w0$/);
      assert.ok(await page.getByRole('spinbutton', { name: 'Moving content (h)' }).isVisible());
      await page.evaluate(() => window.scrollTo(0, 0));

      // Send first and filled; Copy after it, outlined.
      const send = page.getByRole('button', { name: SEND, exact: true });
      const copy = page.getByRole('button', { name: 'Copy answers', exact: true });
      const look = (l) => l.evaluate((b) => {
        const s = getComputedStyle(b);
        return { bg: s.backgroundColor, fg: s.color, x: b.getBoundingClientRect().x };
      });
      const [sendLook, copyLook] = [await look(send), await look(copy)];
      assert.notEqual(sendLook.bg, copyLook.bg, 'one filled button');
      assert.equal(sendLook.bg, copyLook.fg, 'Send filled with the accent Copy is outlined in');
      assert.ok(sendLook.x < copyLook.x, 'Send comes first');

      // Progress, with the script: the two lists count as answered as they stand.
      const progress = page.locator('.pb-actions').locator('..').getByText(/^\d+ of 6 answered$/);
      assert.equal(await progress.textContent(), '2 of 6 answered');
      assert.equal(await intro.getByText('2 of 6 answered').count(), 1, 'and in the intro');

      // A tap at the far end of an option row chooses it.
      const row = page.locator('.pb-option', { has: page.getByRole('radio', { name: 'Self-hosted' }) });
      const box = await row.boundingBox();
      await page.mouse.click(box.x + box.width - 8, box.y + box.height / 2);
      assert.equal(await page.getByRole('radio', { name: 'Self-hosted' }).isChecked(), true);
      assert.equal(await progress.textContent(), '3 of 6 answered');
      await page.getByLabel('Which week suits the cut-over?').fill('the week of 14 September');
      assert.equal(await progress.textContent(), '4 of 6 answered');
      // The lists say what leaving them as they are sends.
      for (const name of ['Migration order', 'Where the hours go']) {
        const list = page.getByRole('region', { name });
        assert.match(await list.textContent(), /Leaving this list as it is sends “kept unchanged”/);
      }

      // On a phone: every option row, list button, comment button and note toggle is 44 × 44.
      await page.setViewportSize({ width: 375, height: 800 });
      const small = [];
      for (const selector of ['.pb-option', '.pb-move', '.pb-remove', '.pb-leaf-comment', '.pb-note > summary',
        '.pb-actions button', '.pb-undo']) {
        for (const b of await boxes(page, selector)) if (b.width < 44 || b.height < 44) small.push(b);
      }
      assert.deepEqual(small, [], 'touch targets under 44 × 44 CSS px at 375 px');
      // The prose keeps its width: no gutter for the comment buttons on a phone.
      const para = await page.locator('.pb-doc p[data-pb-leaf]').first().boundingBox();
      assert.ok(para.width > 375 - 80, `a paragraph is ${para.width} px wide on a 375 px screen`);
      await page.setViewportSize({ width: 1280, height: 900 });

      await shootBoth(page, 'review');
      assert.deepEqual(problems, [], 'console: CSP violations or errors');
    } finally {
      await ctx.close();
    }
  });
});

test('nothing lost: an empty send says which questions, keeps nothing, and "Send anyway" sends (script off, then on)', async () => {
  await withServer(async (server) => {
    const doc = await route(server);
    for (const javaScriptEnabled of [false, true]) {
      const ctx = await browser({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
      try {
        const page = await ctx.newPage();
        await page.goto(doc.review_url);
        if (!javaScriptEnabled) {
          assert.equal(await page.getByText(/of 6 answered/).count(), 0, 'no progress without the script');
        }
        const before = (await responses(server, doc)).length;
        await follow(page, 'button', SEND);
        const summary = page.locator('.pb-error-summary');
        await summary.getByRole('heading', { name: 'You have not answered 4 questions', level: 2 }).waitFor();
        assert.equal((await responses(server, doc)).length, before, 'nothing kept');
        const links = summary.getByRole('link');
        assert.deepEqual(await links.allTextContents(), [
          'Which wiki do we move to?', 'Which spaces move in the first batch?', 'Which week suits the cut-over?',
          'Migration details',
        ]);
        if (javaScriptEnabled) {
          assert.equal(await page.evaluate(() => document.activeElement.classList.contains('pb-error-summary')), true,
            'the summary takes the focus');
          // A link leads to its question's first control.
          await links.nth(2).click();
          assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')
            || document.activeElement.labels?.[0]?.textContent), 'Which week suits the cut-over?');
        }
        if (javaScriptEnabled) await shootBoth(page, 'unanswered');
        await follow(page, 'button', 'Send anyway');
        await page.getByRole('heading', { name: 'Your answers were sent', level: 1 }).waitFor();
        const kept = await responses(server, doc);
        assert.equal(kept.length, before + 1);
        assert.match(kept.at(-1).export, /kept the order unchanged/);
        // Reloading the receipt sends nothing.
        await page.reload();
        await page.getByRole('heading', { name: 'Your answers were sent', level: 1 }).waitFor();
        assert.equal((await responses(server, doc)).length, before + 1, 'a reload sends nothing');
      } finally {
        await ctx.close();
      }
    }
  });
});

test('"Other" chosen with nothing typed is an error on that field; the form comes back as entered', async () => {
  await withServer(async (server) => {
    const doc = await route(server);
    const ctx = await browser({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    try {
      const page = await ctx.newPage();
      await page.goto(doc.review_url);
      await page.getByRole('radio', { name: 'Managed plan' }).check();
      await page.getByRole('checkbox', { name: 'Runbooks' }).check();
      await page.getByLabel('Which week suits the cut-over?').fill('soon');
      await page.getByRole('radio', { name: 'Something else:' }).check();
      await follow(page, 'button', SEND);
      const summary = page.locator('.pb-error-summary');
      await summary.getByRole('heading', { name: 'There is a problem' }).waitFor();
      await summary.getByRole('link', { name: 'Type your answer after “Other”, or choose another option.' }).waitFor();
      assert.equal(await summary.getByRole('button', { name: 'Send anyway' }).count(), 0, 'an error is fixed, not sent anyway');
      const field = page.getByRole('textbox', { name: 'Something else:' });
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      assert.match(await field.evaluate((f) => document.getElementById(f.getAttribute('aria-describedby')).textContent),
        /Type your answer after “Other”/);
      // As entered.
      assert.equal(await page.getByRole('radio', { name: 'Something else:' }).isChecked(), true);
      assert.equal(await page.getByRole('radio', { name: 'Managed plan' }).isChecked(), true);
      assert.equal(await page.getByLabel('Which week suits the cut-over?').inputValue(), 'soon');
      assert.deepEqual(await responses(server, doc), [], 'nothing kept');
      await field.fill('ask each space owner');
      await follow(page, 'button', SEND);
      await page.getByRole('heading', { name: 'Your answers were sent', level: 1 }).waitFor();
      const kept = await responses(server, doc);
      assert.equal(kept.length, 1);
      assert.deepEqual(kept[0].componentInputs.b4.questions.q3, { other: 'ask each space owner' });
    } finally {
      await ctx.close();
    }
  });
});

/** Fills in every question of examples/decision.md and double-clicks Send; waits for the receipt. */
async function fillAndDoubleClickSend(page, doc) {
  await page.goto(doc.review_url);
  await page.getByRole('radio', { name: 'Self-hosted' }).check();
  await page.getByRole('checkbox', { name: 'Runbooks' }).check();
  await page.getByLabel('Which week suits the cut-over?').fill('the week of 14 September');
  await page.getByRole('radio', { name: 'Team leads' }).check();
  await page.getByRole('textbox', { name: 'Your name (optional)' }).fill('Dana');
  // The second click posts the form again while the first post is under way, and Chromium
  // abandons the first navigation for the second: wait for where the page lands, not for
  // either navigation.
  await page.getByRole('button', { name: SEND, exact: true }).dblclick();
  await page.getByRole('heading', { name: 'Your answers were sent', level: 1 }).waitFor();
  assert.match(page.url(), /\/sent\?n=1&k=/, 'the receipt of the first response');
}

test('nothing doubled: a double click on Send keeps one response; the receipt shows it and edits it', async () => {
  await withServer(async (server) => {
    // Without the script: the browser's own form posts, twice.
    const plain = await route(server);
    const off = await browser({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    try {
      await fillAndDoubleClickSend(await off.newPage(), plain);
      assert.equal((await responses(server, plain)).length, 1, 'one response for a double click, script off');
    } finally {
      await off.close();
    }

    const doc = await route(server);
    const ctx = await browser({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await ctx.newPage();
      const problems = watchConsole(page);
      await fillAndDoubleClickSend(page, doc);
      assert.equal((await responses(server, doc)).length, 1, 'one response for a double click');

      // The receipt: the answers drawn as text, not a box of Markdown.
      const answers = page.getByRole('region', { name: 'Your answers' });
      assert.match(await answers.textContent(), /Q: Which wiki do we move to\?\s*Answer: Self-hosted/);
      assert.equal(await page.getByRole('textbox').count(), 0, 'no text box');
      assert.equal(await answers.locator('strong', { hasText: 'Q: Which wiki do we move to?' }).count(), 1);
      await page.getByRole('button', { name: 'Copy answers' }).waitFor();
      await shootBoth(page, 'receipt');

      // "Edit your response": the form filled in; sending it keeps a second response.
      await follow(page, 'link', 'Edit your response');
      assert.equal(await page.getByRole('radio', { name: 'Self-hosted' }).isChecked(), true);
      assert.equal(await page.getByRole('textbox', { name: 'Your name (optional)' }).inputValue(), 'Dana');
      await page.getByRole('radio', { name: 'Managed plan' }).check();
      await follow(page, 'button', SEND);
      await page.waitForURL(/\/sent\?n=2&k=/);
      const kept = await responses(server, doc);
      assert.deepEqual(kept.map((r) => r.componentInputs.b1.selected[0]), ['Self-hosted', 'Managed plan'], 'both kept');
      assert.deepEqual(problems, [], 'console: CSP violations or errors');
    } finally {
      await ctx.close();
    }
  });
});

test('a recipient\'s link greets them; the verdict is the last step, said when missing, kept with the answers', async () => {
  await withServer(async (server) => {
    for (const javaScriptEnabled of [true, false]) {
      const res = await fetch(`${server.url}/v1/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ markdown: DOC, recipients: [{ name: 'Dana <b>Q</b>' }, { name: 'Lee' }], verdict: true }),
      });
      const doc = await res.json();
      assert.equal(res.status, 201, JSON.stringify(doc));
      const ctx = await browser({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
      try {
        const page = await ctx.newPage();
        const problems = watchConsole(page);
        await page.goto(doc.recipients[0].review_url);
        const intro = page.getByRole('region', { name: 'About this review' });
        assert.match(await intro.textContent(), /^\s*For Dana <b>Q<\/b>/, 'greeted by name, as text');
        // The verdict: a group of real radios with a legend, after the questions, before Send.
        const verdict = page.getByRole('group', { name: 'Your verdict' });
        await verdict.waitFor();
        assert.deepEqual(await verdict.getByRole('radio').evaluateAll((r) => r.map((x) => x.labels[0].textContent)),
          ['Approve', 'Request changes', 'Reject']);
        const order = await page.evaluate(() => {
          const v = document.querySelector('.pb-verdict');
          const send = document.querySelector('.pb-actions .pb-send');
          const last = [...document.querySelectorAll('[data-pb-block]')].at(-1);
          return [last.compareDocumentPosition(v) & Node.DOCUMENT_POSITION_FOLLOWING,
            v.compareDocumentPosition(send) & Node.DOCUMENT_POSITION_FOLLOWING];
        });
        assert.ok(order[0] && order[1], 'after the last question, before Send');
        if (javaScriptEnabled) assert.deepEqual(await axeViolations(page), [], 'axe on a recipient\'s page');

        // Sent without a verdict: the summary lists it with the questions left.
        await page.getByRole('radio', { name: 'Managed plan' }).check();
        await follow(page, 'button', SEND);
        const summary = page.locator('.pb-error-summary');
        const link = summary.getByRole('link', { name: 'Your verdict', exact: true });
        await link.waitFor();
        if (javaScriptEnabled) {
          await link.click();
          assert.equal(await page.evaluate(() => document.activeElement.labels?.[0]?.textContent), 'Approve');
          assert.deepEqual(await axeViolations(page), [], 'axe on the summary with the verdict');
        }
        assert.equal(await page.getByRole('radio', { name: 'Managed plan' }).isChecked(), true, 'kept as entered');
        await page.getByRole('group', { name: 'Your verdict' }).getByRole('radio', { name: 'Request changes' }).check();
        await follow(page, 'button', 'Send anyway');
        await page.getByRole('heading', { name: 'Your answers were sent', level: 1 }).waitFor();
        const kept = (await responses(server, doc)).at(-1);
        assert.equal(kept.recipient, 'Dana <b>Q</b>');
        assert.equal(kept.verdict, 'Request changes');
        assert.match(kept.export, /\n\nVerdict: Request changes\n$/);
        // The receipt's edit link goes back through the recipient's own link.
        const edit = await page.getByRole('link', { name: 'Edit your response' }).getAttribute('href');
        assert.ok(edit.endsWith(`&for=${new URL(doc.recipients[0].review_url).searchParams.get('for')}`), edit);
        // The sender sees Dana answered, Lee not yet.
        const seen = await (await fetch(`${server.url}/v1/documents/${doc.id}`, {
          headers: { authorization: `Bearer ${doc.token}` },
        })).json();
        assert.deepEqual(seen.recipients.map((r) => [r.name, r.status]), [['Dana <b>Q</b>', 'answered'], ['Lee', 'not_opened']]);
        assert.deepEqual(problems, [], 'console: CSP violations or errors');
      } finally {
        await ctx.close();
      }
    }
  });
});

test('the verdict in the copy: with the script, "Copy answers" ends with the verdict line the server\'s stored export ends with', async () => {
  await withServer(async (server) => {
    // A label with what the line escapes (`<`) and spaces the routing runs together.
    const res = await fetch(`${server.url}/v1/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ markdown: DOC, verdict: ['Ship <b>it</b>  now', 'Needs work'] }),
    });
    const doc = await res.json();
    assert.equal(res.status, 201, JSON.stringify(doc));
    const exports = {};
    for (const javaScriptEnabled of [true, false]) {
      const ctx = await browser({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
      try {
        const page = await ctx.newPage();
        const problems = watchConsole(page);
        await page.goto(doc.review_url);
        const progress = page.locator('.pb-actions').locator('..').locator('p.pb-progress');
        if (javaScriptEnabled) {
          // The verdict is a step like a question: 6 questions and the verdict; the lists count
          // as answered as they stand.
          assert.equal(await progress.textContent(), '2 of 7 answered');
          assert.match(await page.getByRole('region', { name: 'About this review' }).textContent(), /7 questions · open until/);
        }
        await page.getByRole('radio', { name: 'Managed plan' }).check();
        await page.getByRole('group', { name: 'Your verdict' }).getByRole('radio', { name: 'Ship <b>it</b> now' }).check();
        if (javaScriptEnabled) {
          assert.equal(await progress.textContent(), '4 of 7 answered');
          await page.getByRole('button', { name: 'Copy answers', exact: true }).click();
          exports.copied = await page.locator('.pb-doc').getAttribute('data-pb-copied');
          assert.match(exports.copied, /\n\nVerdict: Ship &lt;b>it&lt;\/b> now\n$/);
        }
        await follow(page, 'button', SEND);
        await follow(page, 'button', 'Send anyway');
        await page.getByRole('heading', { name: 'Your answers were sent', level: 1 }).waitFor();
        const kept = (await responses(server, doc)).at(-1);
        assert.equal(kept.verdict, 'Ship <b>it</b> now');
        exports[javaScriptEnabled ? 'on' : 'off'] = kept.export;
        assert.deepEqual(problems, [], 'console: CSP violations or errors');
      } finally {
        await ctx.close();
      }
    }
    // The same steps, the same answer: the script's copy, and what the server kept with and
    // without the script.
    assert.equal(exports.copied, exports.on);
    assert.equal(exports.off, exports.on);
  });
});

// The server's parts of the review page (intro, verdict step, error summary, field message)
// speak the document's language, as the engine's own parts do.
const SPOKEN = {
  he: {
    doc: `# מעבר לוויקי חדש

כמה החלטות פתוחות לפני המעבר.

\`\`\`single-choice
{ "version": "1", "question": "לאיזה ויקי עוברים?", "options": ["תוכנית מנוהלת", "אירוח עצמי"] }
\`\`\`

\`\`\`questionnaire
{ "version": "1", "title": "פרטי המעבר", "questions": [
  { "id": "q1", "question": "מה עושים בדפים ישנים?", "options": ["להעביר", "למחוק"], "open_field": { "label": "משהו אחר:" } }
] }
\`\`\`
`,
    title: 'מעבר לוויקי חדש', about: 'על הבקשה הזו', facts: '3 שאלות · פתוח עד', send: 'שליחת התשובות',
    verdict: 'ההכרעה שלך', pick: 'להעביר', other: 'משהו אחר:', problem: 'יש בעיה',
    otherEmpty: 'יש להקליד תשובה אחרי „אחר”, או לבחור אפשרות אחרת.', error: 'שגיאה: ',
    unanswered: 'לא ענית על 2 שאלות', anyway: 'לשלוח בכל זאת', typed: 'לפי הצורך',
    sender: 'דנה מהכספים', from: 'המסמך נשלח אליך מאת דנה מהכספים לקבלת תשובותיך.',
    choices: ['אישור', 'בקשת שינויים', 'דחייה'], closed: 'המסמך סגור.',
  },
  ar: {
    doc: `# الانتقال إلى ويكي جديد

بعض القرارات ما زالت مفتوحة قبل الانتقال.

\`\`\`single-choice
{ "version": "1", "question": "إلى أي ويكي ننتقل؟", "options": ["خطة مُدارة", "استضافة ذاتية"] }
\`\`\`

\`\`\`questionnaire
{ "version": "1", "title": "تفاصيل الانتقال", "questions": [
  { "id": "q1", "question": "ماذا نفعل بالصفحات القديمة؟", "options": ["ننقلها", "نحذفها"], "open_field": { "label": "شيء آخر:" } }
] }
\`\`\`
`,
    title: 'الانتقال إلى ويكي جديد', about: 'حول هذا الطلب', facts: 'عدد الأسئلة: 3 · مفتوح حتى', send: 'أرسل الإجابات',
    verdict: 'قرارك', pick: 'ننقلها', other: 'شيء آخر:', problem: 'هناك مشكلة',
    otherEmpty: 'اكتب إجابتك بعد «أخرى»، أو اختر خيارًا آخر.', error: 'خطأ: ',
    unanswered: 'عدد الأسئلة التي لم تُجب عنها: 2', anyway: 'أرسل على أي حال', typed: 'حسب الحاجة',
    sender: 'دانة من المالية', from: 'وصلتك هذه الوثيقة من دانة من المالية للإجابة عنها.',
    choices: ['موافقة', 'طلب تعديلات', 'رفض'], closed: 'هذه الوثيقة مغلقة.',
  },
};

for (const [lang, t] of Object.entries(SPOKEN)) {
  test(`a ${lang} document's review page: intro with its sender, verdict and its choices, error summary, field message and closed notice in ${lang}, right to left`, async () => {
    await withServer(async (server) => {
      const res = await fetch(`${server.url}/v1/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ markdown: t.doc, verdict: true, sender: t.sender }),
      });
      const doc = await res.json();
      assert.equal(res.status, 201, JSON.stringify(doc));
      const ctx = await browser({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await ctx.newPage();
        const problems = watchConsole(page);
        const speaks = (l) => l.evaluate((e) => [e.lang, e.dir]);
        await page.goto(doc.review_url);
        const intro = page.getByRole('region', { name: t.about });
        await intro.waitFor();
        assert.deepEqual(await speaks(intro), [lang, 'rtl']);
        const said = await intro.textContent();
        assert.ok(said.includes(t.facts), said);
        assert.ok(!said.includes(t.title), 'the h1 is not said again');
        assert.equal(await intro.locator('strong').textContent(), t.send);
        assert.doesNotMatch(said.replace(/ UTC/g, ''), /[A-Za-z]{2,}/, 'no English words (UTC aside)');
        // Who sent it, named in a sentence of the document's language, the name isolated.
        assert.equal(await intro.locator('.pb-intro-from').textContent(), t.from);
        assert.equal(await intro.locator('.pb-intro-from bdi').textContent(), t.sender);
        const verdict = page.getByRole('group', { name: t.verdict });
        assert.deepEqual(await speaks(page.locator('.pb-verdict')), [lang, 'rtl']);
        // The default choices are the document's language's.
        assert.deepEqual(await verdict.getByRole('radio').evaluateAll((rs) => rs.map((r) => r.labels[0].textContent)), t.choices);
        assert.deepEqual(doc.verdict, t.choices);
        await shootBoth(page, `review-${lang}`);
        // Without the script, on a phone: the same server-written words (axe needs the
        // script, so it audits the page above, where the same markup has it).
        const off = await browser({ javaScriptEnabled: false, viewport: { width: 375, height: 900 } });
        try {
          const bare = await off.newPage();
          await bare.goto(doc.review_url);
          const introOff = bare.getByRole('region', { name: t.about });
          assert.equal(await introOff.locator('.pb-intro-from').textContent(), t.from);
          const radios = bare.getByRole('group', { name: t.verdict }).getByRole('radio');
          assert.deepEqual(await radios.evaluateAll((rs) => rs.map((r) => r.labels[0].textContent)), t.choices);
          mkdirSync(DIR, { recursive: true });
          await bare.screenshot({ path: join(DIR, `review-${lang}-nojs-375.png`), fullPage: true });
        } finally {
          await off.close();
        }

        // "Other" chosen with nothing typed: the problem, at the top and at the field.
        await page.getByRole('radio', { name: t.other }).check();
        await follow(page, 'button', t.send);
        const summary = page.locator('.pb-error-summary');
        await summary.getByRole('heading', { name: t.problem }).waitFor();
        assert.deepEqual(await speaks(summary), [lang, 'rtl']);
        await summary.getByRole('link', { name: t.otherEmpty }).waitFor();
        const message = page.locator('.pb-field-error');
        assert.deepEqual(await speaks(message), [lang, 'rtl']);
        assert.equal(await message.textContent(), t.error + t.otherEmpty);
        await shootBoth(page, `review-${lang}-problem`);

        // Unanswered, the verdict among them: said in the language, with "Send anyway".
        await page.getByRole('textbox', { name: t.other }).fill(t.typed);
        await follow(page, 'button', t.send);
        await summary.getByRole('heading', { name: t.unanswered }).waitFor();
        await summary.getByRole('link', { name: t.verdict, exact: true }).waitFor();
        await follow(page, 'button', t.anyway);
        assert.equal((await responses(server, doc)).length, 1);

        // Closed: the notice says so in the language, and nothing on the page is English.
        const closed = await fetch(`${server.url}/v1/documents/${doc.id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${doc.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ status: 'closed' }),
        });
        assert.equal(closed.status, 200);
        await page.goto(doc.review_url);
        const notice = page.getByRole('status').filter({ hasText: t.closed });
        await notice.waitFor();
        assert.deepEqual(await speaks(notice), [lang, 'rtl']);
        const shown = await page.locator('main').innerText();
        assert.doesNotMatch(shown, /[A-Za-z]{2,}/, `no English words on the closed page: ${shown}`);
        await shootBoth(page, `review-${lang}-closed`);
        assert.deepEqual(problems, [], 'console: CSP violations or errors');
      } finally {
        await ctx.close();
      }
    });
  });
}

test('a document without an h1 of its own: the intro names it', async () => {
  await withServer(async (server) => {
    const markdown = `---
title: Choosing a wiki
---

One call is still open.

\`\`\`single-choice
{ "version": "1", "question": "Which wiki do we move to?", "options": ["Managed plan", "Self-hosted"] }
\`\`\`
`;
    const res = await fetch(`${server.url}/v1/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ markdown }),
    });
    const doc = await res.json();
    assert.equal(res.status, 201, JSON.stringify(doc));
    const ctx = await browser({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await ctx.newPage();
      await page.goto(doc.review_url);
      const intro = page.getByRole('region', { name: 'About this review' });
      assert.equal(await page.getByRole('heading', { level: 1 }).count(), 0);
      assert.equal(await intro.locator('.pb-intro-title').textContent(), 'Choosing a wiki');
      assert.match(await intro.textContent(), /1 question · open until/);
    } finally {
      await ctx.close();
    }
  });
});
