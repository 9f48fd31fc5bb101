// Shared set-up for the jsdom unit tests of engine/assets/passback.js: the engine's own rendering
// (the `passback render` CLI) loaded into jsdom with the script run in it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';
import { ROOT, BIN } from './harness.mjs';

export { ROOT };
export const SCRIPT = readFileSync(join(ROOT, 'engine', 'assets', 'passback.js'), 'utf8');

/** The engine's HTML fragment for a Markdown file (or text given with `{ text }`). */
export function renderFragment(file, { surface = 'page', text } = {}) {
  const args = ['render', text === undefined ? file : '-', '--surface', surface, '--format', 'fragment'];
  return execFileSync(BIN, args, { input: text, encoding: 'utf8' });
}

/**
 * A jsdom window holding `html` with the enhancement script run in it; the script's own start
 * (on DOMContentLoaded, as a deferred script would see it) has run when the promise resolves.
 */
export async function loadScript(html, { before } = {}) {
  const dom = new JSDOM(`<!DOCTYPE html><html><body><main class="pb-page">${html}</main></body></html>`, {
    runScripts: 'outside-only', pretendToBeVisual: true, url: 'http://127.0.0.1/',
  });
  if (before) before(dom.window);
  dom.window.eval(SCRIPT);
  if (dom.window.document.readyState === 'loading') {
    await new Promise((resolve) => dom.window.document.addEventListener('DOMContentLoaded', resolve));
  }
  return dom;
}
