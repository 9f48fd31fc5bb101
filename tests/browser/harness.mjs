// Shared set-up for the browser tests: the real `passback serve` on loopback (port 0) and Debian's
// Chromium driven by playwright-core. Facts from shared/BROWSER-TESTING.md: persistent contexts,
// --no-sandbox and the network-quieting flags; axe is injected over the devtools protocol so the
// page's strict CSP does not block it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET = process.env.CARGO_TARGET_DIR || join(ROOT, 'target');
export const BIN = process.env.PASSBACK_BIN || join(TARGET, 'debug', 'passback');
const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
export const SHOTS = process.env.PASSBACK_SCREENSHOTS || join(TARGET, 'screenshots');

/** Starts `passback serve` on 127.0.0.1:0 (with more `args`, such as a `--store`) and resolves to { url, stop }. */
export function startServer(args = []) {
  return new Promise((resolve, reject) => {
    if (!existsSync(BIN)) {
      reject(new Error(`${BIN} is missing: run cargo build -p passback-server first`));
      return;
    }
    const child = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', process.env.PB_SERVER_LOG ? 'inherit' : 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m && process.env.PB_SERVER_LOG) console.error(`passback serve pid ${child.pid} (test pid ${process.pid})`);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code, signal) => {
      if (process.env.PB_SERVER_LOG) console.error(`passback serve exited: ${code} ${signal}`);
      reject(new Error(`passback serve exited with ${code}`));
    });
  });
}

/** A fresh persistent Chromium context; options go to playwright (javaScriptEnabled, colorScheme…). */
export async function browser(options = {}) {
  if (!CHROMIUM) throw new Error('Chromium is not installed (apt-get install -y chromium)');
  const profile = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'pb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...options,
  });
  // The profile is of no use once the browser is gone (a run of the suite made hundreds). It
  // goes once close() is done: Chromium writes into it until it has exited.
  const close = context.close.bind(context);
  context.close = async (...args) => {
    await close(...args);
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
  };
  return context;
}

/** Whether a request the page made went somewhere other than the server or a data: URL. */
export function isForeign(server, url) {
  return !url.startsWith(server.url) && !url.startsWith('data:');
}

/** POSTs a document to /v1/render and returns the URL of its cached page rendering. */
export async function renderedPage(server, markdown, query = 'format=page') {
  const res = await fetch(`${server.url}/v1/render?${query}`, {
    method: 'POST', headers: { 'content-type': 'text/markdown' }, body: markdown,
  });
  if (res.status !== 200) throw new Error(`render failed: ${res.status} ${await res.text()}`);
  return server.url + res.headers.get('content-location');
}

const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** Runs axe in the page (injected over the devtools protocol) and returns serious/critical violations. */
export async function axeViolations(page) {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

/** Collects CSP violations and page errors reported to the console. */
export function watchConsole(page) {
  const problems = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  return problems;
}

/**
 * The elements of `scope` (a CSS selector) whose visible box crosses the left or right edge of
 * the viewport, described as `tag.class "label" spans left..right`. Overflow inside a scroll
 * container of the scope (a wide table, a diagram canvas) is clipped by it, so only the clipped
 * box counts; one around the scope (mdBook's content pane) would only hide the overflow.
 */
export function sticksOut(page, scope = 'body') {
  return page.evaluate((scope) => {
    const vw = innerWidth;
    const name = (el) => {
      const label = el.getAttribute('aria-label') || el.textContent.replace(/\s+/g, ' ').trim().slice(0, 40);
      return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${[...el.classList].map((c) => `.${c}`).join('')}${label ? ` "${label}"` : ''}`;
    };
    const out = [];
    for (const root of document.querySelectorAll(scope)) {
      for (const el of [root, ...root.querySelectorAll('*')]) {
        const box = el.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) continue;
        let left = box.left;
        let right = box.right;
        for (let up = el.parentElement; up && root.contains(up); up = up.parentElement) {
          if (getComputedStyle(up).overflowX === 'visible') continue;
          const clip = up.getBoundingClientRect();
          left = Math.max(left, clip.left);
          right = Math.min(right, clip.right);
        }
        if (right > vw + 0.5 || left < -0.5) out.push(`${name(el)} spans ${Math.round(left)}..${Math.round(right)}px`);
      }
    }
    return out;
  }, scope);
}
