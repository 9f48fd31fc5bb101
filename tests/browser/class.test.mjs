// A class diagram drawn by the server, in Chromium: axe-clean light and dark, each class, each
// namespace, each note and each relation a comment target of the existing comment UI, and the
// comments copy back as the engine exports them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, startServer, browser, renderedPage, axeViolations, watchConsole } from './harness.mjs';

const OUT = join(SHOTS, 'class');
const SOURCE = `classDiagram
  namespace Shapes {
    class Shape~T~ {
      <<interface>>
      +String name
      +area()$ double
      +scale(factor)* Shape~T~
    }
    class Square
  }
  Shape <|-- Square
  Canvas "1" *-- "many" Shape : holds
  Canvas ..> Renderer
  note for Canvas "owns its shapes"
  style Renderer fill:#fde68a`;
let server;
let ctx;
before(async () => {
  server = await startServer();
  ctx = await browser({ viewport: { width: 1000, height: 900 } });
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await ctx?.close();
  server?.stop();
});

test('class diagram: comments on a class, a namespace, a note and a relation', async () => {
  const md = '```mermaid\n' + JSON.stringify({ version: '1', source: SOURCE, title: 'Shapes' }) + '\n```\n';
  const page = await ctx.newPage();
  const problems = watchConsole(page);
  await page.goto(await renderedPage(server, md));
  const svg = page.locator('[data-pb-kind="mermaid"] svg').first();
  assert.match(await svg.getAttribute('class'), /pb-mermaid-class/);
  assert.match(await page.locator('svg desc').textContent(),
    /Class diagram, top to bottom\. Classes: “Shape<T>” \(Shape\); “Square”; “Canvas”; “Renderer”\./);
  // The class, by a click on its name.
  await page.locator('svg [data-node="Shape"] .pb-class-name').click();
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
  await page.keyboard.type('generic in what?');
  // The namespace and the note, by keyboard.
  for (const [id, text] of [['Shapes', 'rename'], ['note0', 'true?']]) {
    await page.locator(`svg [data-node="${id}"]`).focus();
    await page.keyboard.press('Enter');
    assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.node\.\d+$/);
    await page.keyboard.type(text);
  }
  // A relation, by a click on its label.
  await page.locator('svg [data-edge="Canvas→Shape"] .pb-d-label-bg').click();
  assert.match(await page.evaluate(() => document.activeElement.name), /^b1\.edge\.\d+$/);
  await page.keyboard.type('how many?');
  const marked = await page.locator('svg .pb-commented').evaluateAll((els) => els.map((e) => e.getAttribute('data-edge') || e.getAttribute('data-node')).sort());
  assert.deepEqual(marked, ['Canvas→Shape', 'Shape', 'Shapes', 'note0']);
  const markdown = await page.evaluate(() => window.passback.exportAnswers(document.querySelector('.pb-doc')).markdown);
  for (const line of ['## Shapes (diagram)', '- Node `Shape` — generic in what?', '- Node `Shapes` — rename', '- Node `note0` — true?', '- Edge `Canvas→Shape` — how many?']) {
    assert.ok(markdown.includes(line), `${line} in:\n${markdown}`);
  }
  // Inheritance, composition and dependency each have their marker.
  assert.equal(await page.locator('svg [data-edge] .pb-class-marker').count(), 3);
  // Static underlined, abstract in italics.
  assert.equal(await page.locator('svg .pb-class-rows text[text-decoration="underline"]').textContent(), '+area() : double');
  assert.equal(await page.locator('svg .pb-class-rows text[font-style="italic"]').textContent(), '+scale(factor) : Shape<T>');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}`);
    await page.locator('.pb-diagram').first().screenshot({ path: join(OUT, `comments-${scheme}.png`) });
  }
  // The author's fill holds in the dark theme.
  assert.equal(await page.locator('svg [data-node="Renderer"] .pb-d-authored').first().getAttribute('fill'), '#fde68a');
  // Its name keeps a colour readable on it (dark text on the light fill), in the dark theme too.
  const nameFill = await page.locator('svg [data-node="Renderer"] .pb-class-name').evaluate((t) => getComputedStyle(t).fill);
  assert.match(nameFill, /^rgb\((\d{1,2}), (\d{1,2}), (\d{1,2})\)$/, nameFill);
  assert.deepEqual(problems, []);
  await page.close();
});
