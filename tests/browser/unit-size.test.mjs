// The budget: the enhancement script under 20 KB minified and gzipped, the stylesheet (the base
// file and the widgets' file, served as one) under 12 KB gzipped. Minified with esbuild.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { transformSync } from 'esbuild';
import { ROOT } from './harness.mjs';
import { SCRIPT } from './unit-harness.mjs';

const asset = (name) => readFileSync(join(ROOT, 'engine', 'assets', name), 'utf8');
const gz = (text) => gzipSync(text, { level: 9 }).length;

test('script: under 20 KB minified and gzipped', () => {
  // The served script: its files joined, with the chrome strings of every language.
  const min = transformSync(SCRIPT, { minify: true, loader: 'js' }).code;
  const size = gz(min);
  console.log(`passback.js: ${min.length} bytes minified, ${size} gzipped`);
  assert.ok(size < 20 * 1024, `${size} bytes`);
});

test('stylesheet: under 12 KB gzipped', () => {
  const css = `${asset('passback.css')}\n${asset('enhance.css')}`;
  const size = gz(css);
  const min = gz(transformSync(css, { minify: true, loader: 'css' }).code);
  console.log(`passback.css + enhance.css: ${css.length} bytes, ${size} gzipped (${min} minified and gzipped)`);
  assert.ok(size < 12 * 1024, `${size} bytes`);
});
