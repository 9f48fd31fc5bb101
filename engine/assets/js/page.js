// ---------------------------------------------------------------------------------------------
// The page: each document's export from its form (its blocks by their components'
// registrations, then the comments on its prose), each document's enhancement, the answers
// page's copy button, and the start.

/**
 * The document's export from its form fields, as `from_form` then `export` make it.
 * `pairs` is [[name, value], …] in form order; returns { markdown, notices }.
 */
function exportFromPairs(doc, pairs) {
  // A field for a block the document lacks was not rendered here: refused, as the engine does.
  var ids = $$(doc, '[data-pb-block]').map(function (b) { return b.getAttribute('data-pb-block'); });
  pairs.forEach(function (p) {
    var m = /^(b[0-9]+)\.([\s\S]*)$/.exec(p[0]);
    if (m && ids.indexOf(m[1]) < 0) throw new AnswersError(m[1], m[2], 'the document has no block ' + m[1] + '; reload the form');
  });
  var out = [];
  var notices = [];
  var later = [];
  $$(doc, '[data-pb-model]').forEach(function (section) {
    var component = componentOf(section);
    if (!component || !component.decode) {
      throw new Error('passback: a block of kind "' + section.getAttribute('data-pb-kind') + '" has a model but no export');
    }
    var id = section.getAttribute('data-pb-block');
    var values = valuesOf(pairs, id);
    var b = {
      id: id, model: JSON.parse(section.getAttribute('data-pb-model')), values: values,
      op: values('op')[0] || null, section: section
    };
    var part = component.export(b, component.decode(b, later), notices);
    if (part) out.push(part);
  });
  var leaves = leavesOf(doc);
  var root = closest(doc, '.pb-doc');
  var t = stringsFor(root && root.getAttribute('lang'));
  var comments = exportAnnotations(t, leaves, annotationsFromPairs(leaves, pairs));
  if (comments) out.push(comments);
  var markdown = out.join('\n\n');
  markdown = markdown ? markdown + '\n' : '';
  // A routed page's verdict, the last step (the server's export ends with it too).
  var verdict = pairs.filter(function (p) { return p[0] === VERDICT_FIELD; }).pop();
  return { markdown: withVerdictLine(markdown, verdict && verdict[1]), notices: notices.concat(later) };
}

function valuesOf(pairs, id) {
  return function (suffix) {
    var name = id + '.' + suffix;
    var out = [];
    for (var i = 0; i < pairs.length; i++) if (pairs[i][0] === name) out.push(pairs[i][1]);
    return out;
  };
}

/** The fields a plain submit of `form` would post (no submit button). */
function formPairs(form) {
  var pairs = [];
  var fields = form.elements;
  for (var i = 0; i < fields.length; i++) {
    var f = fields[i];
    if (!f.name || f.disabled || /^(submit|button|reset|image|file)$/.test(f.type)) continue;
    if ((f.type === 'checkbox' || f.type === 'radio') && !f.checked) continue;
    if (f.tagName === 'SELECT') {
      for (var o = 0; o < f.options.length; o++) if (f.options[o].selected) pairs.push([f.name, f.options[o].value]);
    } else pairs.push([f.name, f.value]);
  }
  return pairs;
}

// ---------------------------------------------------------------------------------------------
// The document: live region, Copy answers (button and Ctrl/Cmd-Enter), print.

function enhanceDoc(doc) {
  if (doc.pbEnhanced) return;
  doc.pbEnhanced = true;
  var t = stringsFor(doc.getAttribute('lang'));
  var live = el('div', { 'class': 'pb-visually-hidden pb-live', role: 'status', 'aria-live': 'polite' });
  doc.insertBefore(live, doc.firstChild);
  var ui = {
    t: t,
    announce: function (message) {
      // The same message twice must still be a change for the screen reader to speak it.
      live.textContent = live.textContent === message ? message + '\u00a0' : message;
    }
  };
  var form = doc.hasAttribute('data-pb-chapter') ? enhanceChapter(doc, t, ui) : $(doc, ':scope > form.pb-form');
  // Each block by its component's registration. One that takes answers is enhanced from its
  // model, which the email surface does not write.
  $$(doc, '.pb-block[data-pb-kind]').forEach(function (block) {
    var component = componentOf(block);
    if (component && component.enhance && (!component.decode || block.hasAttribute('data-pb-model'))) {
      component.enhance(block, ui);
    }
  });
  if (!form) return;
  enhanceLeaves(form, ui);
  $$(form, '.pb-note textarea').forEach(noteMark);
  form.addEventListener('input', function (event) {
    if (closest(event.target, '.pb-note')) noteMark(event.target);
  });

  // Enter in a text field would submit through the form's hidden default button and leave the
  // page; with the script on, only the visible buttons submit.
  form.addEventListener('submit', function (event) {
    if (event.submitter && event.submitter.hidden) event.preventDefault();
  });

  // The engine's own row of buttons, a child of the form: never one the prose could spell.
  var actions = $(form, ':scope > .pb-actions');
  var copy = el('button', { type: 'button', 'class': 'pb-copy pb-submit', 'aria-keyshortcuts': 'Control+Enter Meta+Enter' }, form.pbParts ? t.copy_page : t.copy_answers);
  var said = el('span', { 'class': 'pb-copy-status', role: 'status', 'aria-live': 'polite' });
  var shown = el('details', { 'class': 'pb-copied', hidden: '' });
  var textId = (doc.getAttribute('data-pb-hash') || 'pb').slice(0, 8) + '-copied';
  shown.appendChild(el('summary', null, t.copied_answers));
  shown.appendChild(el('label', { 'for': 'pb-' + textId, 'class': 'pb-visually-hidden' }, t.copied_answers));
  var text = el('textarea', { id: 'pb-' + textId, readonly: '', rows: '8' });
  shown.appendChild(text);
  // Where the form sends the answers (a routed page), Send is the primary action and Copy a
  // secondary one after it; elsewhere Copy comes first.
  var send = $(actions, '.pb-send');
  if (send) {
    copy.className = 'pb-copy pb-secondary';
    actions.insertBefore(copy, send.nextSibling);
  } else actions.insertBefore(copy, actions.firstChild);
  actions.appendChild(said);
  if (send) trackProgress(doc, form, actions, t);
  actions.parentNode.insertBefore(shown, actions.nextSibling);
  // With no action the form would post to a page that cannot answer (mdBook, saved HTML).
  if (!form.hasAttribute('action')) $$(actions, 'button[type="submit"]:not(.pb-copy)').forEach(function (b) { b.hidden = true; });

  var build = function () {
    // A block holding a typed value not applied yet (an allocate weight still in its field).
    $$(form, '[data-pb-kind]').forEach(function (s) { if (s.pbFlush) s.pbFlush(); });
    var own = exportFromPairs(form, formPairs(form));
    if (!form.pbParts) return own;
    // An mdBook chapter: its components' exports, then the comments on its text, each
    // joined by one blank line as a document's blocks are.
    var parts = form.pbParts().concat([own]);
    var markdown = parts.map(function (p) { return p.markdown.replace(/\n$/, ''); })
      .filter(function (m) { return m; }).join('\n\n');
    return {
      markdown: markdown ? markdown + '\n' : '',
      notices: parts.reduce(function (all, p) { return all.concat(p.notices); }, [])
    };
  };
  var run = function () {
    var result;
    try {
      result = build();
    } catch (e) {
      said.textContent = e.message || String(e);
      return;
    }
    if (!result.markdown) {
      said.textContent = t.nothing_answered;
      return;
    }
    // The engine's notices: a remainder spread in proportion (the only one the widgets allow).
    var extra = result.notices.length ? ' ' + t.spread_unallocated : '';
    text.value = result.markdown;
    shown.hidden = false;
    doc.setAttribute('data-pb-copied', result.markdown);
    var fallback = function () {
      var ok = false;
      shown.open = true;
      text.select();
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      said.textContent = (ok ? t.answers_copied : t.copy_by_hand) + extra;
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(result.markdown).then(function () {
        said.textContent = t.answers_copied + extra;
      }, fallback);
    } else fallback();
  };
  copy.addEventListener('click', run);
  doc.pbCopy = run;
  doc.pbExport = build;

  // Called by the one page-wide listener below: a listener per document would keep every
  // replaced document alive on a page that renders new ones (a live preview).
  doc.pbPrint = function () {
    var old = $(doc, '.pb-print');
    if (old) old.parentNode.removeChild(old);
    var markdown;
    try { markdown = build().markdown; } catch (e) { markdown = ''; }
    if (!markdown) return;
    var box = el('section', { 'class': 'pb-print' });
    box.appendChild(el('h2', null, t.your_answers));
    box.appendChild(el('pre', null, markdown));
    doc.appendChild(box);
  };
}

// ---------------------------------------------------------------------------------------------
// A routed page's progress: "3 of 8 answered", beside Send and in the page's intro.

/** The kinds a reader answers as questions; a list left as it is answers "kept unchanged". */
var QUESTION_KINDS = ['single-choice', 'multi-choice', 'open-question', 'questionnaire', 'prioritize', 'allocate'];
var LIST_KINDS = ['prioritize', 'allocate'];

function answeredCount(form) {
  var pairs = formPairs(form);
  var answered = 0;
  var questions = 0;
  $$(form, '[data-pb-model]').forEach(function (section) {
    var kind = section.getAttribute('data-pb-kind');
    if (QUESTION_KINDS.indexOf(kind) < 0) return;
    questions++;
    if (LIST_KINDS.indexOf(kind) >= 0) { answered++; return; }
    var component = componentOf(section);
    if (!component || !component.decode) return;
    var id = section.getAttribute('data-pb-block');
    var values = valuesOf(pairs, id);
    var b = {
      id: id, model: JSON.parse(section.getAttribute('data-pb-model')), values: values,
      op: values('op')[0] || null, section: section
    };
    try {
      if (component.export(b, component.decode(b, []), [])) answered++;
    } catch (e) { /* an answer the engine would refuse is not an answer yet */ }
  });
  // The verdict's step counts as one more question, answered once a choice is made.
  if ($(form, 'input[name="' + VERDICT_FIELD + '"]')) {
    questions++;
    if (pairs.some(function (p) { return p[0] === VERDICT_FIELD && p[1]; })) answered++;
  }
  return { answered: answered, questions: questions };
}

function trackProgress(doc, form, actions, t) {
  var own = el('p', { 'class': 'pb-progress' });
  actions.parentNode.insertBefore(own, actions);
  var shown = [own].concat($$(document, '[data-pb-progress]'));
  var update = function () {
    var n = answeredCount(form);
    var words = fill(t.progress, n.answered, n.questions);
    shown.forEach(function (p) { p.textContent = words; p.hidden = false; });
  };
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  form.addEventListener('click', function () { setTimeout(update, 0); });
  update();
}

// ---------------------------------------------------------------------------------------------
// The server's answers page: its copy button (the text is already on the page).

function copyFrom(button) {
  var target = document.getElementById(button.getAttribute('data-pb-copy'));
  if (!target) return;
  var text = target.value !== undefined ? target.value : target.textContent;
  var status = document.getElementById(button.getAttribute('data-pb-status'));
  var done = function (ok) {
    // The page's own words for the outcome, in its language, when it gives them.
    var said = ok ? button.getAttribute('data-pb-copied') : button.getAttribute('data-pb-copy-failed');
    if (status) status.textContent = said || (ok ? STRINGS.en.copied : STRINGS.en.copy_failed);
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
  } else {
    target.select();
    done(document.execCommand && document.execCommand('copy'));
  }
}

function onKey(event) {
  if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey)) return;
  var doc = closest(event.target, '.pb-doc');
  if (!doc) {
    var all = $$(document, '.pb-doc').filter(function (d) { return d.pbCopy; });
    doc = all.length === 1 ? all[0] : null;
  }
  if (doc && doc.pbCopy) {
    event.preventDefault();
    doc.pbCopy();
  }
}

function init() {
  $$(document, 'button[data-pb-copy]').forEach(function (b) {
    b.hidden = false;
    b.addEventListener('click', function (event) { copyFrom(event.currentTarget); });
  });
  $$(document, '.pb-doc').forEach(enhanceDoc);
  // A page sent back with a problem: its summary takes the focus, as the reader's next step.
  var problem = $(document, '.pb-error-summary');
  if (problem && !document.pbProblemShown) {
    document.pbProblemShown = true;
    problem.focus();
  }
  if (!document.pbKeys) {
    document.pbKeys = true;
    document.addEventListener('keydown', onKey);
    window.addEventListener('beforeprint', function () {
      $$(document, '.pb-doc').forEach(function (d) { if (d.pbPrint) d.pbPrint(); });
    });
  }
}

window.passback = {
  /** The copy-back export of a rendered document (its `.pb-doc` or `form.pb-form`). */
  exportAnswers: function (doc) {
    var form = doc.matches('form') ? doc : $(doc, ':scope > form.pb-form');
    return exportFromPairs(form, formPairs(form));
  },
  /** The export of given form fields ([[name, value], …]) for a rendered document. */
  exportFromPairs: exportFromPairs,
  /** A prose leaf's visible text, as the export quotes it. */
  leafText: leafText,
  /** Enhances every `.pb-doc` not enhanced yet: call it after inserting a rendering. */
  enhance: init
};

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
else init();
