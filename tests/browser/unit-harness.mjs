// Shared set-up for the jsdom unit tests of the enhancement script (engine/assets/js, joined by
// engine/src/assets.rs): the engine's own rendering (the `passback render` CLI) loaded into jsdom
// with the script run in it.
import { execFileSync } from 'node:child_process';
import { JSDOM } from 'jsdom';
import { ROOT, BIN, startServer, renderedPage } from './harness.mjs';

export { ROOT };

/**
 * The script exactly as the server serves it: its files joined in their one order, with the
 * chrome strings the engine writes into it. Read once from a `passback serve` started for it.
 */
export async function servedScript() {
  const server = await startServer();
  try {
    const page = await renderedPage(server, 'A paragraph.\n');
    const html = await (await fetch(page)).text();
    const src = /<script src="([^"]*\/passback-[0-9a-f]+\.js)"/.exec(html);
    if (!src) throw new Error('the rendered page links no passback script');
    const res = await fetch(new URL(src[1], page));
    if (res.status !== 200) throw new Error(`${src[1]}: ${res.status}`);
    return await res.text();
  } finally {
    server.stop();
  }
}

export const SCRIPT = await servedScript();

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
