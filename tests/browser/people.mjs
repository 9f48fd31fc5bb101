// A person filling in a rendered document, by label and role, to reach the choices of an answers
// fixture (`NAME.responses.json`). With JavaScript on the person uses the enhanced widgets (moves
// by button, keyboard, select or drag; weights typed or slid; Other chosen by typing alone); with
// it off they use the plain form, whose list edits are round trips to the server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';

export const ANSWERS = join(ROOT, 'fixtures', 'answers');

export const CHROME = {
  en: { other: 'Other:', note: 'Add a note (optional)', copy: 'Copy answers', copied: 'Answers copied to the clipboard.', get: 'Get answers', addItem: 'Add an item of your own', addCategory: 'Add a category of your own', add: 'Add', remove: 'Remove {}', up: 'Move {} up', position: 'Position of {}', wholeDiagram: 'Comment on the whole diagram', parts: 'Comment on a box or an arrow', commentDocument: 'Comment on the whole document (optional)', commentSel: 'Comment on the selection', commentOn: 'Comment on “{}”' },
  he: { other: 'אחר:', note: 'הוספת הערה (לא חובה)', copy: 'העתקת התשובות', copied: 'התשובות הועתקו ללוח.', get: 'קבלת התשובות', addItem: 'הוספת פריט משלך', addCategory: 'הוספת קטגוריה משלך', add: 'הוספה', remove: 'הסרת {}', up: 'הזזת {} למעלה', position: 'המיקום של {}', wholeDiagram: 'הערה על התרשים כולו', parts: 'הערה על תיבה או חץ', commentDocument: 'הערה על המסמך כולו (לא חובה)', commentSel: 'הערה על הטקסט המסומן', commentOn: 'הערה על „{}”' },
  ar: { other: 'أخر:', note: 'أضف ملاحظة (اختياري)', copy: 'نسخ الإجابات', copied: 'تم نسخ الإجابات إلى الحافظة.', get: 'احصل على الإجابات', addItem: 'أضف عنصرًا خاصًا بك', addCategory: 'أضف فئة خاصة بك', add: 'إضافة', remove: 'إزالة {}', up: 'نقل {} لأعلى', position: 'موضع {}', wholeDiagram: 'تعليق على المخطط بالكامل', parts: 'تعليق على مربع أو سهم', commentDocument: 'تعليق على المستند كله (اختياري)', commentSel: 'تعليق على النص المحدد', commentOn: 'تعليق على «{}»' },
};
const fill = (t, v) => t.replace('{}', v);

/** The component fences of a fixture, as b1, b2, … with their JSON (other code is prose; raw Mermaid is its source). */
export function blocksOf(markdown) {
  const out = [];
  const re = /```(single-choice|multi-choice|open-question|questionnaire|prioritize|allocate|youtube|mermaid)\n([\s\S]*?)\n```/g;
  let m;
  while ((m = re.exec(markdown))) {
    // Plain Mermaid text in a mermaid fence is the source of a diagram with no title.
    const raw = m[1] === 'mermaid' && !m[2].trim().startsWith('{');
    out.push({ id: `b${out.length + 1}`, kind: m[1], spec: raw ? { version: '1', source: m[2].trim() } : JSON.parse(m[2]) });
  }
  return out;
}

export function fixture(name) {
  const md = readFileSync(join(ANSWERS, `${name}.md`), 'utf8');
  return {
    md,
    blocks: blocksOf(md),
    responses: JSON.parse(readFileSync(join(ANSWERS, `${name}.responses.json`), 'utf8')),
    expected: readFileSync(join(ANSWERS, `${name}.expected.md`), 'utf8'),
  };
}

/**
 * Fills `page` to the fixture's choices. `js` says whether the page runs the script; `style` picks
 * how a person with JavaScript moves things: 'buttons', 'keyboard', 'select' or 'drag'.
 */
export async function fillIn(page, fx, { js, style = 'buttons' }) {
  const lang = await page.locator('.pb-doc').first().getAttribute('lang');
  const t = CHROME[lang] || CHROME.en;
  const roundTrip = async (locator) => {
    await Promise.all([page.waitForEvent('load'), locator.click()]);
  };
  for (const block of fx.blocks) {
    const answer = fx.responses[block.id];
    if (!answer) continue;
    const scope = page.locator(`[data-pb-block="${block.id}"]`);
    const spec = block.spec;
    if (['single-choice', 'multi-choice', 'open-question'].includes(block.kind)) {
      await question(page, scope, { ...spec, multi: block.kind === 'multi-choice' }, answer, t, { js, style }, block.kind);
    } else if (block.kind === 'questionnaire') {
      for (const [qid, a] of Object.entries(answer.questions || {})) {
        await question(page, scope, spec.questions.find((q) => q.id === qid), a, t, { js, style }, 'questionnaire');
      }
    } else if (block.kind === 'prioritize' || block.kind === 'allocate') {
      const label = (id) => spec.items.find((i) => i.id === id).label;
      for (const id of answer.removed || []) {
        const button = scope.getByRole('button', { name: fill(t.remove, label(id)), exact: true });
        if (js) await button.click(); else await roundTrip(button);
      }
      const added = block.kind === 'prioritize'
        ? (answer.order || []).filter((e) => typeof e !== 'string').map((e) => e.added)
        : (answer.added || []).map((a) => a.label);
      for (const text of added) {
        const box = scope.getByRole('textbox', { name: block.kind === 'prioritize' ? t.addItem : t.addCategory, exact: true });
        await box.fill(text);
        if (js) await box.press('Enter');
        else await roundTrip(scope.getByRole('button', { name: t.add, exact: true }));
      }
      if (block.kind === 'prioritize' && answer.order) {
        await rank(page, scope, answer.order.map((e) => (typeof e === 'string' ? label(e) : e.added)), t, { js, style });
      }
      if (block.kind === 'allocate') await weigh(page, scope, spec, answer, fx.expected, { js, style });
      if (answer.note) await note(scope, spec.note_field?.label || t.note, answer.note);
    } else if (block.kind === 'mermaid') {
      // A pair's k-th comment goes on its k-th arrow (`FROM→TO`, then `FROM→TO#2`, …), as the
      // engine reads comments sent as JSON.
      const seen = new Map();
      for (const c of answer.comments || []) {
        if (c.on === 'diagram') {
          await note(scope, t.wholeDiagram, c.text);
          continue;
        }
        const pair = `${c.from}→${c.to}`;
        const k = c.on === 'edge' ? (seen.get(pair) ?? -1) + 1 : 0;
        if (c.on === 'edge') seen.set(pair, k);
        const key = c.on === 'node' ? `textarea[data-pb-node="${c.id}"]` : `textarea[data-pb-edge="${pair}"]`;
        const target = scope.locator(c.on === 'node' ? `svg [data-node="${c.id}"]` : `svg [data-edge="${k ? `${pair}#${k + 1}` : pair}"]`);
        if (js && await target.count()) {
          // The diagram's own shape: choosing it opens its comment field.
          if (style === 'keyboard') {
            await target.focus();
            await page.keyboard.press('Enter');
          } else await target.click();
          await page.keyboard.type(c.text);
          continue;
        }
        const name = await scope.locator(key).nth(k).evaluate((f) => f.labels[0].textContent);
        const parts = scope.locator('details.pb-diagram-parts');
        if (!(await parts.evaluate((d) => d.open))) await parts.getByText(t.parts, { exact: true }).click();
        await scope.getByRole('textbox', { name, exact: true }).fill(c.text);
      }
    }
  }
  // Comments on the prose: the whole document's box, and with the script, comments on leaves.
  for (const a of fx.responses.annotations || []) {
    if (a.leaf == null) await note(page.locator('form.pb-form'), t.commentDocument, a.text);
    else if (!js) throw new Error('only the script comments on a leaf');
    else if (a.text.trim()) await commentOnLeaf(page, a, t, style);
  }
}

/** Whether a fixture comments on a leaf, which only the script can do. */
export const leafComments = (fx) => (fx.responses.annotations || []).some((a) => a.leaf != null);

/** Whitespace as the page's text has it (engine/src/prose.rs `collapse`). */
export const collapse = (s) => s.replace(/[ \t\n\f\r]+/g, ' ').replace(/^ | $/g, '');

/**
 * Selects `quote` in `leaf` as a person dragging over it would, across the elements inside it
 * (for `locator.evaluate`): the page's text with its whitespace collapsed, mapped back to the
 * text nodes.
 */
export function selectQuote(leaf, quote) {
  const walker = document.createTreeWalker(leaf, NodeFilter.SHOW_TEXT);
  const at = [];
  let text = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('.pb-leaf-ui, .footnote-backref')) continue;
    for (let i = 0; i < node.data.length; i++) {
      const space = /[ \t\n\f\r]/.test(node.data[i]);
      if (space && (text === '' || text.endsWith(' '))) continue;
      text += space ? ' ' : node.data[i];
      at.push([node, i]);
    }
  }
  const start = text.indexOf(quote);
  if (start < 0) throw new Error(`"${quote}" is not in "${text}"`);
  const [a, i] = at[start];
  const [b, j] = at[start + quote.length - 1];
  getSelection().setBaseAndExtent(a, i, b, j + 1);
}

/** Comments on a leaf: on a selected excerpt, or on the whole leaf by its Comment button. */
async function commentOnLeaf(page, a, t, style) {
  const leaf = page.locator(`[data-pb-leaf="${a.leaf}"]`);
  const quote = a.quote == null ? '' : collapse(a.quote);
  const button = quote
    ? page.getByRole('button', { name: t.commentSel, exact: true })
    : page.locator(`tr[data-pb-leaf="${a.leaf}"] .pb-leaf-comment, [data-pb-leaf="${a.leaf}"]:not(tr) + .pb-leaf-comment`);
  if (quote) await leaf.evaluate(selectQuote, quote);
  if (style === 'keyboard') {
    await button.focus();
    await page.keyboard.press('Enter');
  } else {
    if (!quote) await leaf.hover();
    await button.click();
  }
  await page.keyboard.type(a.text);
}

async function note(scope, label, text) {
  await scope.locator('summary', { hasText: label }).first().click();
  await scope.getByRole('textbox', { name: label, exact: true }).fill(text);
}

async function question(page, scope, q, a, t, { js, style }, kind) {
  if (kind === 'open-question') {
    await scope.getByRole('textbox', { name: q.question, exact: true }).fill(a.text);
    return;
  }
  const group = scope.getByRole('group', { name: q.question, exact: true });
  const multi = q.multi === true || kind === 'multi-choice';
  const otherLabel = q.open_field?.label || t.other;
  if (!q.options.length) {
    await group.getByRole('textbox', { name: otherLabel, exact: true }).fill(a.other);
  } else {
    for (const label of a.selected || []) {
      const control = group.getByRole(multi ? 'checkbox' : 'radio', { name: label, exact: true });
      if (style === 'keyboard') {
        await control.focus();
        await page.keyboard.press('Space');
      } else await control.check();
    }
    if (a.other) {
      // Typed only: with JavaScript the row is chosen by the typing; without it the server
      // counts typed Other text as the choice.
      const box = group.getByRole('textbox', { name: otherLabel, exact: true });
      if (style === 'keyboard') {
        await box.focus();
        await page.keyboard.type(a.other);
      } else await box.fill(a.other);
      if (js) {
        const chosen = await group.getByRole(multi ? 'checkbox' : 'radio', { name: otherLabel, exact: true }).isChecked();
        if (!chosen) throw new Error(`typing in "${otherLabel}" did not choose it`);
      }
    }
  }
  if (a.note) await note(group, t.note, a.note);
}

async function labelsIn(scope) {
  return scope.locator('.pb-rank-label').allTextContents();
}

async function rank(page, scope, target, t, { js, style }) {
  if (!js) {
    for (const [i, label] of target.entries()) {
      await scope.getByRole('combobox', { name: fill(t.position, label), exact: true }).selectOption(String(i + 1));
    }
    return;
  }
  for (let i = 0; i < target.length; i++) {
    let current = await labelsIn(scope);
    const label = target[i];
    if (current.indexOf(label) === i) continue;
    if (style === 'select') {
      await scope.getByRole('combobox', { name: fill(t.position, label), exact: true }).selectOption(String(i + 1));
    } else if (style === 'drag') {
      const rows = scope.locator('.pb-rank-item');
      const from = rows.nth(current.indexOf(label)).locator('.pb-grip');
      await rows.nth(i).scrollIntoViewIfNeeded();
      await from.scrollIntoViewIfNeeded();
      const to = await rows.nth(i).boundingBox();
      const box = await from.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2, to.y + 2, { steps: 8 });
      await page.mouse.up();
    } else {
      const up = scope.getByRole('button', { name: fill(t.up, label), exact: true });
      while (current.indexOf(label) > i) {
        if (style === 'keyboard') {
          await scope.getByRole('button', { name: fill(t.remove, label), exact: true }).focus();
          await page.keyboard.press('Alt+ArrowUp');
        } else await up.click();
        current = await labelsIn(scope);
      }
    }
    current = await labelsIn(scope);
    if (current.indexOf(label) !== i) throw new Error(`${label} is at ${current.indexOf(label)}, not ${i}: ${current}`);
  }
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function weigh(page, scope, spec, answer, expected, { js, style }) {
  const unit = spec.unit ?? '%';
  const suffix = unit.trim() ? ` (${unit.trim()})` : '';
  const box = (label) => scope.getByRole('spinbutton', { name: label + suffix, exact: true });
  const label = (id) => spec.items.find((i) => i.id === id).label;
  // What the export will show (the resolved split).
  const re = new RegExp(`^- (.+): ([0-9.]+)${escape(unit)}( |$)`, 'gm');
  const targets = [...expected.matchAll(re)].map((m) => [m[1], Number(m[2])]);
  const now = async (l) => Number(await box(l).inputValue());
  if (!js) {
    // The plain form takes the weights as typed; the server rescales a sum that misses the total.
    let typed = [...Object.entries(answer.weights || {}).map(([id, w]) => [label(id), w]),
      ...(answer.added || []).map((a) => [a.label, a.weight ?? 0])];
    // But one weight raised past the total, the rest as shown, is the share the reader gets
    // (docs/decisions.md): a person who means the answer's rescaled split types that split.
    const shown = await Promise.all(typed.map(([l]) => now(l)));
    const changed = typed.filter(([, w], i) => Number(w) !== shown[i]).length;
    const all = await scope.locator('.pb-weight').evaluateAll((fields) => fields.map((f) => Number(f.value)));
    const after = all.reduce((a, b) => a + b, 0) + typed.reduce((a, [, w], i) => a + Number(w) - shown[i], 0);
    if (changed === 1 && after > (spec.total ?? 100)) typed = targets;
    for (const [l, w] of typed) await box(l).fill(String(w));
    return;
  }
  // With the script the split always sums to the total: a person sets what the export will show,
  // lowering categories first so raising ones spends the remainder.
  const moves = [];
  for (const [l, w] of targets) moves.push([l, w, w - await now(l)]);
  moves.sort((a, b) => a[2] - b[2]);
  for (const [l, w, delta] of moves) {
    if (delta === 0) continue;
    if (style === 'keyboard' && Number.isInteger(delta) && Math.abs(delta) <= 30 && (spec.total ?? 100) % 1 === 0) {
      await scope.getByRole('slider', { name: l + suffix, exact: true }).focus();
      for (let i = 0; i < Math.abs(delta); i++) await page.keyboard.press(delta > 0 ? 'ArrowUp' : 'ArrowDown');
    } else {
      await box(l).fill(String(w));
      await box(l).press('Tab');
    }
    const got = await now(l);
    if (got !== w) throw new Error(`${l} is ${got}, not ${w}`);
  }
}
