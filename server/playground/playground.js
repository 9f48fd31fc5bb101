// The playground's script: the preview follows the editor as you type, the editor numbers its
// lines and marks each problem's line, problems take you to their place in the text (and
// invalid blocks in the preview say why), examples load in one
// click, the draft is kept in this browser across reloads, and Share puts the document in the
// link's #fragment. Without it the page is a form that posts to `/`, which renders the same
// things on the server. It runs under the server's CSP: no inline code, no eval, and it talks
// to this server only (`/v1/render`, `/v1/validate`, the examples asset).
(function () {
  'use strict';

  var RENDER_DELAY_MS = 300; // after the last keystroke
  var MAX_LINK = 32 * 1024; // characters after `#s=`: longer links break in chat apps and mail
  var MAX_RESTORED = 1024 * 1024; // the server's default body limit; a link never holds more
  var DRAFT_KEY = 'passback.playground.draft'; // the draft, in this browser's localStorage

  var root = document.querySelector('main.pbp');
  if (!root) return;
  var byId = function (id) { return document.getElementById(id); };
  var form = root.querySelector('form.pbp-editor');
  var editor = byId('pbp-doc');
  var preview = byId('pbp-preview');
  var status = byId('pbp-status');
  var note = byId('pbp-share-status');
  var shareButton = byId('pbp-share');
  var shareBox = byId('pbp-share-box');
  var shareLink = byId('pbp-share-link');
  var problems = byId('pbp-diagnostics');
  var problemList = byId('pbp-diag-list');
  var problemCount = byId('pbp-diag-count');
  var exampleLinks = Array.prototype.slice.call(root.querySelectorAll('a[data-pbp-example]'));

  // The text the preview shows: the server rendered the page's own text already.
  var previewText = preview.querySelector('.pb-doc') ? editor.defaultValue : '';
  var timer = 0;
  var seq = 0;
  var inFlight = null;

  var gutter = makeGutter();
  readyPreview();
  byId('pbp-render').hidden = true;
  // Its rows become buttons, which take focus themselves.
  problems.removeAttribute('tabindex');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    refresh();
  });
  editor.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      saveDraft();
      refresh();
    }, RENDER_DELAY_MS);
    // A link made before this edit no longer holds the text.
    shareBox.hidden = true;
    gutter.numberLines();
  });
  problemList.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-line]');
    if (button) goTo(+button.getAttribute('data-line'), +button.getAttribute('data-column'));
  });
  exampleLinks.forEach(function (a) { a.addEventListener('click', loadExample); });
  if (window.CompressionStream && window.DecompressionStream) {
    shareButton.hidden = false;
    shareButton.addEventListener('click', share);
    window.addEventListener('hashchange', restoreFromLink);
  }
  if (sharedPayload() !== null) restoreFromLink();
  else {
    restoreDraft();
    refresh();
  }

  // ---------------------------------------------------------------------------------------------
  // The preview and the problems.

  /** The preview's answers come out by "Copy answers"; a post would leave the playground. */
  function readyPreview() {
    Array.prototype.forEach.call(preview.querySelectorAll('form.pb-form'), function (f) {
      f.removeAttribute('action');
      f.setAttribute('method', 'dialog');
    });
  }

  function refresh() {
    clearTimeout(timer);
    gutter.numberLines();
    var text = editor.value;
    var mine = ++seq;
    if (inFlight) inFlight.abort();
    inFlight = window.AbortController ? new AbortController() : null;
    if (!text.trim()) {
      previewText = text;
      preview.replaceChildren(el('p', { 'class': 'pbp-empty' }, 'Nothing to show yet. Write in the editor, or pick an example above: “Every component” shows the whole palette.'));
      showStatus(null);
      showProblems([]);
      gutter.mark([]);
      return;
    }
    var request = {
      method: 'POST',
      headers: { 'content-type': 'text/markdown; charset=utf-8' },
      body: text,
      signal: inFlight ? inFlight.signal : undefined
    };
    var rendering = text === previewText ? Promise.resolve(null)
      : fetch('/v1/render?format=fragment', request).then(function (r) { return answer(r, 'text'); });
    var validation = fetch('/v1/validate', request).then(function (r) { return answer(r, 'json'); });
    preview.setAttribute('aria-busy', 'true');
    Promise.all([rendering, validation]).then(function (results) {
      if (mine !== seq) return;
      preview.removeAttribute('aria-busy');
      if (results[0] !== null) {
        // The server's rendering: escaped and sanitized by the engine, and the page's CSP
        // keeps any script from running.
        preview.innerHTML = results[0];
        previewText = text;
        readyPreview();
        if (window.passback && window.passback.enhance) window.passback.enhance();
      }
      showStatus(results[1]);
      showProblems(results[1].diagnostics);
      gutter.mark(results[1].diagnostics);
      explainInvalid(results[1].diagnostics);
    }, function (error) {
      if (mine !== seq || (error && error.name === 'AbortError')) return;
      preview.removeAttribute('aria-busy');
      status.setAttribute('data-outcome', 'failed');
      status.textContent = 'Not rendered: ' + (error && error.message ? error.message : String(error));
    });
  }

  /** A response's body, or an error carrying the server's problem detail. */
  function answer(response, kind) {
    if (response.ok) return kind === 'json' ? response.json() : response.text();
    return response.text().then(function (body) {
      var detail;
      try { detail = JSON.parse(body).detail; } catch (e) { detail = null; }
      throw new Error(detail || 'the server answered ' + response.status + '.');
    });
  }

  /** The status line, in the words the server's page uses. */
  function showStatus(validation) {
    var outcome = validation ? validation.outcome : '';
    var word = 'No document yet.';
    var details = '';
    if (validation) {
      var errors = validation.diagnostics.filter(function (d) { return d.severity === 'error'; }).length;
      var warnings = validation.diagnostics.filter(function (d) { return d.severity === 'warning'; }).length;
      var parts = [plural(validation.blocks.length, 'component', 'components')];
      if (errors) parts.push(plural(errors, 'error', 'errors'));
      if (warnings) parts.push(plural(warnings, 'warning', 'warnings'));
      word = outcome === 'valid' ? 'Valid' : 'Violating';
      details = ' · ' + parts.join(' · ');
    }
    // Unchanged words are left alone, so a screen reader does not hear them on every pause.
    if (status.textContent === word + details && (status.getAttribute('data-outcome') || '') === outcome) return;
    if (outcome) status.setAttribute('data-outcome', outcome);
    else status.removeAttribute('data-outcome');
    status.replaceChildren(validation ? el('strong', null, word) : word, details);
  }

  function plural(n, one, many) {
    return n + ' ' + (n === 1 ? one : many);
  }

  /** Each problem as a button that takes the caret to its place. */
  function showProblems(diagnostics) {
    problems.hidden = diagnostics.length === 0;
    problemCount.textContent = '(' + diagnostics.length + ')';
    problemList.replaceChildren.apply(problemList, diagnostics.map(function (d) {
      var button = el('button', {
        type: 'button', 'class': 'pbp-diag', 'data-severity': d.severity,
        'data-line': String(d.line), 'data-column': String(d.column)
      });
      button.append(
        el('span', { 'class': 'pbp-sev' }, d.severity), ' ',
        el('span', { 'class': 'pbp-pos' },
          el('span', { 'class': 'pb-visually-hidden' }, 'line ' + d.line + ', column ' + d.column),
          el('span', { 'aria-hidden': 'true' }, d.line + ':' + d.column)), ' ',
        el('span', { 'class': 'pbp-msg' }, d.message), ' ',
        el('span', { 'class': 'pbp-more' },
          el('span', { 'class': 'pbp-hint' }, 'Hint: ' + d.hint), ' ',
          el('code', { 'class': 'pbp-code' }, d.code)));
      return el('li', null, button);
    }));
  }

  /** Under each block the preview shows as its source (it is not valid), the errors that
   * keep it from being a component, each taking the caret to its place. */
  function explainInvalid(diagnostics) {
    Array.prototype.forEach.call(preview.querySelectorAll('.pbp-invalid-why'), function (n) { n.remove(); });
    Array.prototype.forEach.call(preview.querySelectorAll('pre.pb-invalid[data-pb-block]'), function (pre) {
      var block = pre.getAttribute('data-pb-block');
      var errors = diagnostics.filter(function (d) { return d.block === block && d.severity === 'error'; });
      if (!errors.length) return;
      var why = el('div', { 'class': 'pbp-invalid-why' },
        el('p', null, 'Shown as its source: this ' + pre.getAttribute('data-pb-kind') + ' block is not valid.'));
      var list = el('ul');
      errors.forEach(function (d) {
        var button = el('button', { type: 'button', 'class': 'pbp-link' },
          'line ' + d.line + ', column ' + d.column);
        button.addEventListener('click', function () { goTo(d.line, d.column); });
        list.append(el('li', null, d.message + ' (', button, ')'));
      });
      why.append(list);
      pre.after(why);
    });
  }

  /** Puts the caret at a 1-based line and column (columns count characters, as the engine
   * does; the text area counts UTF-16 units) and shows that line. */
  function goTo(line, column) {
    var text = editor.value;
    var start = 0;
    for (var l = 1; l < line; l++) {
      var next = text.indexOf('\n', start);
      if (next < 0) break;
      start = next + 1;
    }
    var end = text.indexOf('\n', start);
    var offset = start;
    var chars = Array.from(text.slice(start, end < 0 ? text.length : end));
    for (var c = 0; c < column - 1 && c < chars.length; c++) offset += chars[c].length;
    editor.focus();
    editor.setSelectionRange(offset, offset);
    editor.scrollTop = Math.max(0, caretTop(offset) - editor.clientHeight / 3);
    gutter.follow();
  }

  /** How far down the text area the caret at `offset` sits: the text before it, laid out in an
   * invisible copy of the text area (the same font, width and wrapping). */
  function caretTop(offset) {
    var style = getComputedStyle(editor);
    var copy = el('div', { 'aria-hidden': 'true' });
    ['fontFamily', 'fontSize', 'fontWeight', 'lineHeight', 'letterSpacing', 'tabSize',
      'paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft', 'whiteSpace', 'overflowWrap',
      'wordBreak', 'direction'].forEach(function (p) { copy.style[p] = style[p]; });
    copy.style.position = 'absolute';
    copy.style.visibility = 'hidden';
    copy.style.insetBlockStart = '0';
    copy.style.boxSizing = 'border-box';
    copy.style.width = editor.clientWidth + 'px';
    copy.textContent = editor.value.slice(0, offset) + '.';
    document.body.appendChild(copy);
    var top = copy.scrollHeight - parseFloat(style.lineHeight || '20');
    copy.remove();
    return top;
  }

  // ---------------------------------------------------------------------------------------------
  // The gutter: line numbers beside the text (lines do not wrap, so line N sits N - 1 line
  // heights down), and a mark on each line with a problem. The numbers are one text node,
  // rewritten only when the line count changes; the marks are buttons that take the caret to
  // the problem, named by its message. A caret moved onto a marked line says its problems.

  function makeGutter() {
    var numbers = el('div', { 'class': 'pbp-gutter-numbers', 'aria-hidden': 'true' });
    var marks = el('div', { 'class': 'pbp-gutter-marks' });
    var inner = el('div', { 'class': 'pbp-gutter-inner' }, numbers, marks);
    var box = el('div', { 'class': 'pbp-gutter' }, inner);
    var wrap = el('div', { 'class': 'pbp-source' });
    var lineNote = el('p', { id: 'pbp-line-note', 'class': 'pbp-line-note', role: 'status' });
    editor.setAttribute('wrap', 'off');
    editor.parentNode.insertBefore(wrap, editor);
    wrap.append(box, editor);
    wrap.after(lineNote);
    root.classList.add('pbp-numbered');
    var lines = 0;
    var byLine = {}; // line → its diagnostics
    var caretLine = 0;

    function countLines() {
      var text = editor.value;
      var n = 1;
      for (var at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
      return n;
    }

    /** The numbers come in blocks of CHUNK lines, one text node each: a new line rewrites
     * the last block only, so a long document is not laid out again on every Enter. */
    var CHUNK = 100; // as the stylesheet's intrinsic height of a block says
    function block(first, last) {
      var parts = [];
      for (var i = first; i <= last; i++) parts.push(i);
      return el('div', null, parts.join('\n'));
    }

    function numberLines() {
      var n = countLines();
      if (n !== lines) {
        var keep = Math.floor(Math.min(n, lines) / CHUNK); // full blocks that stay as they are
        while (numbers.children.length > keep) numbers.lastChild.remove();
        for (var first = keep * CHUNK + 1; first <= n; first += CHUNK) {
          numbers.append(block(first, Math.min(n, first + CHUNK - 1)));
        }
        // Wide enough for the longest number.
        box.style.setProperty('--pbp-digits', String(String(n).length));
        lines = n;
      }
      follow();
    }

    /** The gutter scrolls with the text. */
    function follow() {
      if (box.scrollTop !== editor.scrollTop) box.scrollTop = editor.scrollTop;
    }

    var ICONS = { error: '\u2716', warning: '\u25b2', info: 'i' };
    var RANK = { error: 0, warning: 1, info: 2 };

    function describe(line) {
      return 'Line ' + line + ': ' + byLine[line].map(function (d) {
        return d.severity + ', ' + d.message;
      }).join('; ');
    }

    function mark(diagnostics) {
      byLine = {};
      diagnostics.forEach(function (d) {
        (byLine[d.line] = byLine[d.line] || []).push(d);
      });
      marks.replaceChildren.apply(marks, Object.keys(byLine).map(Number).sort(function (a, b) { return a - b; }).map(function (line) {
        var list = byLine[line];
        var worst = list.reduce(function (w, d) { return RANK[d.severity] < RANK[w.severity] ? d : w; }, list[0]);
        var button = el('button', {
          type: 'button', 'class': 'pbp-mark', 'data-severity': worst.severity,
          'data-line': String(line), 'aria-label': describe(line), title: describe(line)
        }, el('span', { 'aria-hidden': 'true' }, ICONS[worst.severity] || '!'));
        button.style.setProperty('--pbp-line', String(line - 1));
        return button;
      }));
      caretLine = 0;
      if (document.activeElement === editor) caretMoved();
    }

    marks.addEventListener('click', function (event) {
      var button = event.target.closest('button[data-line]');
      if (!button) return;
      var d = byLine[+button.getAttribute('data-line')];
      if (d) goTo(d[0].line, d[0].column);
    });
    // A mark reached by Tab brings its line into view; the gutter scrolls the text, too.
    marks.addEventListener('focusin', function (event) {
      var button = event.target.closest('button[data-line]');
      if (!button) return;
      var top = button.offsetTop;
      if (top < editor.scrollTop || top + button.offsetHeight > editor.scrollTop + editor.clientHeight) {
        editor.scrollTop = Math.max(0, top - editor.clientHeight / 3);
      }
      follow();
    });
    box.addEventListener('scroll', function () {
      if (editor.scrollTop !== box.scrollTop) editor.scrollTop = box.scrollTop;
    });
    editor.addEventListener('scroll', follow);

    function caretMoved() {
      var text = editor.value;
      var line = 1;
      var end = editor.selectionStart;
      for (var at = text.indexOf('\n'); at >= 0 && at < end; at = text.indexOf('\n', at + 1)) line++;
      if (line === caretLine) return;
      caretLine = line;
      var said = byLine[line] ? describe(line) : '';
      if (lineNote.textContent !== said) lineNote.textContent = said;
    }
    ['keyup', 'mouseup', 'focus'].forEach(function (type) {
      editor.addEventListener(type, caretMoved);
    });
    editor.addEventListener('blur', function () { caretLine = 0; });

    numberLines();
    return { numberLines: numberLines, mark: mark, follow: follow };
  }

  // ---------------------------------------------------------------------------------------------
  // Examples.

  var examples = null;

  function loadExample(event) {
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    var link = event.currentTarget;
    var id = link.getAttribute('data-pbp-example');
    if (!examples) {
      examples = fetch(root.getAttribute('data-pbp-examples')).then(function (r) {
        if (!r.ok) throw new Error(r.status);
        return r.json();
      });
    }
    examples.then(function (list) {
      var example = list.filter(function (e) { return e.id === id; })[0];
      if (!example) throw new Error(id);
      var had = editor.value.trim() && !list.some(function (e) { return e.markdown === editor.value; });
      if (had) {
        replaceText(example.markdown);
        link.focus();
      } else {
        editor.value = example.markdown;
        editor.scrollTop = 0;
      }
      exampleLinks.forEach(function (a) {
        if (a === link) a.setAttribute('aria-current', 'page');
        else a.removeAttribute('aria-current');
      });
      history.replaceState(null, '', link.href);
      shareBox.hidden = true;
      say('Loaded the example “' + link.textContent + '”.' + (had ? ' Undo in the editor (Ctrl+Z) brings your text back.' : ''));
      refresh();
    }).catch(function () {
      examples = null;
      location.href = link.href; // the server renders it
    });
  }

  /** Replaces the editor's text as one edit, so the editor's undo brings the old text back.
   * It needs the editor focused (on a phone that opens the keyboard), so it is kept for text
   * the reader wrote. */
  function replaceText(text) {
    editor.focus({ preventScroll: true });
    editor.select();
    var done = false;
    try { done = document.execCommand('insertText', false, text); } catch (e) { done = false; }
    if (!done || editor.value !== text) editor.value = text;
    editor.setSelectionRange(0, 0);
    editor.scrollTop = 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Share links: the document, deflated and in base64url, after `#s=`. Browsers never send the
  // fragment to a server, so the link stores nothing anywhere and leaves nothing in a log.

  function share() {
    if (!editor.value.trim()) {
      say('There is nothing to share yet: write a document or load an example first.');
      return;
    }
    // Started inside the promise: a browser without deflate-raw throws when asked for it.
    Promise.resolve(editor.value).then(pack).then(function (payload) {
      if (payload.length > MAX_LINK) {
        shareBox.hidden = true;
        say('This document is too large for a link: compressed, it still needs ' + kb(payload.length) +
          ', and a link carries at most ' + kb(MAX_LINK) + '. Share the text itself instead.');
        return;
      }
      var url = location.origin + location.pathname + '#s=' + payload;
      history.replaceState(null, '', url);
      exampleLinks.forEach(function (a) { a.removeAttribute('aria-current'); });
      shareLink.value = url;
      shareBox.hidden = false;
      var copied = navigator.clipboard && navigator.clipboard.writeText
        ? navigator.clipboard.writeText(url) : Promise.reject(new Error('no clipboard'));
      copied.then(function () {
        say('Link copied. The document travels after its #, a part browsers never send to a server.');
      }, function () {
        shareLink.focus();
        shareLink.select();
        say('Copy the link below.');
      });
    }, function (error) {
      say('Could not make a link: ' + error.message);
    });
  }

  function kb(n) {
    return Math.ceil(n / 1024) + ' KB';
  }

  /** The payload after `#s=`, or null. */
  function sharedPayload() {
    var hash = location.hash;
    return hash.indexOf('#s=') === 0 ? hash.slice(3) : null;
  }

  function restoreFromLink() {
    var payload = sharedPayload();
    if (payload === null) return;
    if (!window.DecompressionStream) {
      say('This browser cannot open share links.');
      return;
    }
    unpack(payload).then(function (text) {
      if (text === editor.value) return refresh();
      if (editor.value === editor.defaultValue) editor.value = text;
      else replaceText(text);
      shareBox.hidden = true;
      exampleLinks.forEach(function (a) { a.removeAttribute('aria-current'); });
      say('Opened the document from the link.');
      refresh();
    }, function () {
      say('This link’s document could not be read: the link is damaged or cut short.');
      refresh();
    });
  }

  function pack(text) {
    var stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      var binary = '';
      for (var i = 0; i < bytes.length; i += 0x8000) {
        binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      }
      return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    });
  }

  /** The text in a payload; refuses one that inflates past MAX_RESTORED (a crafted link). */
  function unpack(payload) {
    return Promise.resolve().then(function () {
      var binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
      var bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      var reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
      var chunks = [];
      var size = 0;
      var read = function () {
        return reader.read().then(function (step) {
          if (step.done) return;
          size += step.value.length;
          if (size > MAX_RESTORED) {
            reader.cancel();
            throw new Error('too large');
          }
          chunks.push(step.value);
          return read();
        });
      };
      return read().then(function () {
        return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(concat(chunks, size)));
      });
    });
  }

  function concat(chunks, size) {
    var out = new Uint8Array(size);
    var at = 0;
    chunks.forEach(function (c) { out.set(c, at); at += c.length; });
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // The draft, kept in this browser so a reload or a closed tab loses nothing. It never leaves
  // the browser; an empty editor forgets it.

  function saveDraft() {
    try {
      if (editor.value.trim()) localStorage.setItem(DRAFT_KEY, editor.value);
      else localStorage.removeItem(DRAFT_KEY);
    } catch (e) { /* storage off or full: the draft just is not kept */ }
  }

  /** The kept draft, unless the page was opened on an example or on text of its own. */
  function restoreDraft() {
    var draft = null;
    try { draft = localStorage.getItem(DRAFT_KEY); } catch (e) { draft = null; }
    if (!draft || draft === editor.value) return;
    if (editor.value.trim() || /[?&]example=/.test(location.search)) return;
    editor.value = draft;
    say('Your draft from this browser is back. Clear the editor to forget it.');
  }

  // ---------------------------------------------------------------------------------------------

  function say(message) {
    // The same message twice must still be a change for a screen reader to speak it.
    note.textContent = note.textContent === message ? message + '\u00a0' : message;
  }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    for (var i = 2; i < arguments.length; i++) node.append(arguments[i]);
    return node;
  }
})();
