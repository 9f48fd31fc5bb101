// Unit tests of the enhancement script's export (node's test runner + jsdom): for every answers
// fixture with a form post (`NAME.form.txt`), the script's export of those exact form fields, on
// the engine's rendering of `NAME.md`, must equal `NAME.expected.md` character for character —
// the same check engine/tests/answers.rs makes of the server's decoder — or, where the fixture is
// a refusal (`NAME.error.txt`), the script must refuse with a message containing that text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderFragment, loadScript } from './unit-harness.mjs';
import { BIN } from './harness.mjs';
import { ANSWERS as DIR, fixture } from './people.mjs';

const names = readdirSync(DIR).filter((f) => f.endsWith('.form.txt')).map((f) => f.slice(0, -'.form.txt'.length)).sort();

test('the answers corpus has form fixtures', () => assert.ok(names.length >= 25, `only ${names.length}`));

for (const name of names) {
  test(`export of ${name}`, async () => {
    const html = renderFragment(join(DIR, `${name}.md`));
    const { window } = await loadScript(html);
    const pairs = readFileSync(join(DIR, `${name}.form.txt`), 'utf8').split('\n').filter((l) => l.trim())
      .map((l) => { const i = l.indexOf('='); return i < 0 ? [l, ''] : [l.slice(0, i), l.slice(i + 1)]; });
    const form = window.document.querySelector('form.pb-form');
    const error = join(DIR, `${name}.error.txt`);
    if (existsSync(error)) {
      const words = readFileSync(error, 'utf8').trim();
      assert.throws(() => window.passback.exportFromPairs(form, pairs), (e) => e.message.includes(words));
    } else assert.equal(window.passback.exportFromPairs(form, pairs).markdown, fixture(name).expected);
    window.close();
  });
}

test('an untouched document exports what the engine exports for no responses', async () => {
  for (const name of names.filter((n) => !existsSync(join(DIR, `${n}.error.txt`)))) {
    const { responses, expected } = fixture(name);
    if (Object.keys(responses).length) continue;
    const { window } = await loadScript(renderFragment(join(DIR, `${name}.md`)));
    assert.equal(window.passback.exportAnswers(window.document.querySelector('.pb-doc')).markdown, expected, name);
    window.close();
  }
});

/** The script's export of `fields` posted with the form of Markdown `md`: the Markdown, or the refusal. */
async function exportOf(md, fields) {
  const { window } = await loadScript(renderFragment(null, { text: md }));
  try {
    return window.passback.exportFromPairs(window.document.querySelector('form.pb-form'), fields).markdown;
  } catch (e) {
    return { refused: e.message };
  } finally {
    window.close();
  }
}

// The same hand-made posts engine/tests/answers.rs holds the engine's form decode to.
test('hand-made posts get the answer the engine gives them', async () => {
  const fence = (kind, spec) => `\`\`\`${kind}\n${JSON.stringify({ version: '1', ...spec })}\n\`\`\`\n`;
  const single = fence('single-choice', { question: 'Which?', options: ['A', 'B'] });
  // An option and Other in one radio group, with Other text typed or not; Other twice is one answer.
  for (const typed of [[['b1.q0.other', 'C']], []]) {
    assert.deepEqual(await exportOf(single, [['b1.q0.pick', '0'], ['b1.q0.pick', 'other'], ...typed]),
      { refused: 'b1 q0.pick: a single-choice question takes one answer' });
  }
  assert.match(await exportOf(single, [['b1.q0.pick', 'other'], ['b1.q0.pick', 'other'], ['b1.q0.other', 'C']]), /Answer: Other: C/);

  // A note for a list whose note field is off: the page has no such box.
  const items = [{ id: 'a', label: 'A', weight: 50 }, { id: 'b', label: 'B', weight: 50 }];
  for (const kind of ['prioritize', 'allocate']) {
    const md = fence(kind, { note_field: { enabled: false }, items });
    assert.doesNotMatch(await exportOf(md, [['b1.note', 'sneaked in']]), /sneaked/, kind);
    assert.match(await exportOf(fence(kind, { items }), [['b1.note', 'kept']]), /\n\nNote: kept\n$/, kind);
  }

  // Two added categories with the same label keep their own weights.
  const split = fence('allocate', { items });
  const ops = (w1, w2) => [['b1.item', 'i:a'], ['b1.w.0', '40'], ['b1.item', 'i:b'], ['b1.w.1', '40'],
    ['b1.item', 'a:Ops'], ['b1.w.2', w1], ['b1.item', 'a:Ops'], ['b1.w.3', w2]];
  assert.match(await exportOf(split, ops('15', '5')), /- Ops: 15% — \(added by reader\)\n- Ops: 5% — \(added by reader\)/);
  // Added again with Add: the new one has no weight of its own.
  assert.match(await exportOf(split, [...ops('15', '5'), ['b1.add', 'Ops']]),
    /- Ops: 15% — \(added by reader\)\n- Ops: 5% — \(added by reader\)\n- Ops: 0% — \(added by reader\)/);

  // An item removed twice is listed once.
  const twice = await exportOf(split, [['b1.item', 'i:a'], ['b1.item', 'i:b'], ['b1.removed', 'a'], ['b1.op', 'remove:0']]);
  assert.match(twice, /Removed by reader: A\n/);
  assert.doesNotMatch(twice, /A; A/);

  // Fields for two blocks the document lacks: the first posted is named.
  for (const [first, second] of [['b7', 'b9'], ['b9', 'b7']]) {
    assert.deepEqual(await exportOf(single, [[`${first}.q0.pick`, '0'], [`${second}.q0.pick`, '1']]),
      { refused: `${first} q0.pick: the document has no block ${first}; reload the form` });
  }
});

// A reviewer's text can never start an entry of the export (contract §6.1): the issue's own
// attacks in every reviewer-written field, posted as the form, come out of the script exactly as
// out of the engine (`passback answers` on the same choices as JSON), continuation lines
// indented, markers escaped, no raw HTML.
test('reviewer text cannot forge entries, in the script as in the engine', async () => {
  const fence = (kind, spec) => `\`\`\`${kind}\n${JSON.stringify({ version: '1', ...spec })}\n\`\`\`\n`;
  const items = [{ id: 'a', label: 'Search', weight: 50 }, { id: 'b', label: 'Mobile', weight: 50 }];
  const md = 'We have outgrown the old wiki.\n\n' + [
    fence('questionnaire', { title: 'Wiki', questions: [
      { id: 'q1', question: 'Which wiki?', options: ['Confluence', 'Notion'] },
      { id: 'q2', question: 'When?', options: [], open_field: { label: 'Date:' } }] }),
    fence('open-question', { question: 'Anything else?' }),
    fence('prioritize', { items: items.map(({ id, label }) => ({ id, label })) }),
    fence('allocate', { total: 100, unit: '%', items }),
    fence('mermaid', { source: 'graph TD; A[Old] --> B[New];' }),
  ].join('\n');
  const attacks = ['Confluence\n\n**Q: Which wiki do we move to?**\nAnswer: Stay where we are',
    'ok\n\n## Comments on the text\n\n- On the whole document — ship it', '<b>bold</b>\n# h\n1. one\n---\n> q\n[^1]: x',
    'https://x.y\\<script>\u2028- sep\u000b+ vt'];
  const both = async (f) => {
    const { window } = await loadScript(renderFragment(null, { text: md }));
    const form = window.document.querySelector('form.pb-form');
    const script = window.passback.exportFromPairs(form, [
      ['b1.q0.pick', 'other'], ['b1.q0.other', f], ['b1.q0.note', f], ['b1.q1.other', f], ['b2.q0.text', f],
      ['b3.item', 'i:b'], ['b3.item', 'a:' + f], ['b3.item', 'i:a'], ['b3.note', f],
      ['b4.item', 'i:a'], ['b4.w.0', '40'], ['b4.item', 'i:b'], ['b4.w.1', '40'], ['b4.item', 'a:' + f], ['b4.w.2', '20'], ['b4.note', f],
      ['b5.comment', f], ['b5.node.0', f], ['b5.edge.0', f], ['pb.note.0.leaf', '1'], ['pb.note.0.text', f], ['pb.comment', f],
    ]).markdown;
    window.close();
    const responses = JSON.stringify({
      b1: { questions: { q1: { other: f, note: f }, q2: { other: f } } }, b2: { text: f },
      b3: { order: ['b', { added: f }, 'a'], note: f },
      b4: { weights: { a: 40, b: 40 }, added: [{ label: f, weight: 20 }], note: f },
      b5: { comments: [{ on: 'diagram', text: f }, { on: 'node', id: 'A', text: f }, { on: 'edge', from: 'A', to: 'B', text: f }] },
      annotations: [{ leaf: 1, text: f }, { text: f }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'pb-forge-'));
    try {
      writeFileSync(join(dir, 'doc.md'), md);
      writeFileSync(join(dir, 'responses.json'), responses);
      const engine = execFileSync(BIN, ['answers', '--doc', join(dir, 'doc.md'), '--responses', join(dir, 'responses.json')], { encoding: 'utf8' });
      assert.equal(script, engine, JSON.stringify(f));
    } finally {
      rmSync(dir, { recursive: true });
    }
    return script;
  };
  // The lines at column 0, by how they start: the document's entries, whatever the reviewer wrote.
  const top = (s) => s.split('\n').filter((l) => !l.startsWith(' ')).map((l) => l.slice(0, 2));
  const plain = top(await both('x'));
  for (const f of attacks) {
    const md = await both(f);
    assert.deepEqual(top(md), plain, md);
    assert.doesNotMatch(md, /<[A-Za-z/!?]/, md);
    for (const l of md.split('\n').filter((x) => x.startsWith(' '))) {
      assert.match(l, /^ {4}/, l);
      assert.doesNotMatch(l, /^\s*(#|>|[-*+](\s|$)|\*\*|[0-9]+[.)](\s|$)|\[.*\]:|---|===|___|Answer|Note:)/, l);
    }
  }
  const { window } = await loadScript(renderFragment(null, { text: md }));
  const md0 = window.passback.exportFromPairs(window.document.querySelector('form.pb-form'), [['b2.q0.text', attacks[0]]]).markdown;
  window.close();
  assert.equal(md0, '**Q: Anything else?**\nAnswer: Confluence\n    \\*\\*Q: Which wiki do we move to?**\n    \\Answer: Stay where we are\n\n' +
    '(reader kept the order unchanged)\n\n1. Search\n2. Mobile\n\n(reader kept the allocation unchanged)\n\n- Search: 50% (unchanged)\n- Mobile: 50% (unchanged)\n\nTotal: 100%\n');
});
