// Unit tests of the enhancement script's export (node's test runner + jsdom): for every answers
// fixture with a form post (`NAME.form.txt`), the script's export of those exact form fields, on
// the engine's rendering of `NAME.md`, must equal `NAME.expected.md` character for character —
// the same check engine/tests/answers.rs makes of the server's decoder — or, where the fixture is
// a refusal (`NAME.error.txt`), the script must refuse with a message containing that text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { renderFragment, loadScript } from './unit-harness.mjs';
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
