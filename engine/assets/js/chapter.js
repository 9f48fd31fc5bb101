// ---------------------------------------------------------------------------------------------
// mdBook chapters. mdBook writes a chapter's prose itself, so its leaves carry no number; the
// preprocessor puts an empty `.pb-chapter-start` before the chapter and a `.pb-chapter` after
// it, and the script numbers the prose between them as `prose::write_html` numbers a
// document's (tests/browser/chapter.test.mjs holds the two to the same leaves). The chapter's
// form holds the whole-page comment box and "Copy all answers on this page", which exports
// every component of the chapter and then the comments on its text.

/** A leaf by its own element: a paragraph (not an admonition's title), heading, row or code block. */
function isLeafElement(e) {
  if (e.tagName === 'P') return !e.classList.contains('blockquote-tag-title');
  return /^(H[1-6]|TR|PRE)$/.test(e.tagName);
}

/**
 * A tight list item's (or a definition's) text before its first block, wrapped in a span as
 * the engine writes it; null when it starts with a block (a loose item's paragraph).
 */
function tightLead(item) {
  var lead = [];
  for (var c = item.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1 && /^(P|UL|OL|DL|PRE|BLOCKQUOTE|TABLE|DIV|H[1-6]|HR)$/.test(c.tagName)) break;
    lead.push(c);
  }
  var text = lead.some(function (n) { return n.nodeType === 1 || /\S/.test(n.data || ''); });
  if (!text) return null;
  if (lead.length === 1 && lead[0].nodeType === 1 && lead[0].tagName === 'SPAN' && lead[0].hasAttribute('data-pb-leaf')) return lead[0];
  var span = el('span');
  item.insertBefore(span, lead[0]);
  lead.forEach(function (n) { span.appendChild(n); });
  return span;
}

/** The prose leaves between a chapter's start marker (or the top of `root`) and `end`. */
function chapterLeaves(root, start, end) {
  var out = [];
  var on = !start;
  var done = false;
  (function walk(node) {
    for (var c = node.firstElementChild; c && !done; c = c.nextElementSibling) {
      if (c === end) { done = true; return; }
      if (c === start) { on = true; continue; }
      if (c.classList.contains('pb-doc') || c.classList.contains('pb-leaf-ui') || c.classList.contains('pb-chapter-start')) continue;
      if (on && isLeafElement(c)) { out.push(c); continue; }
      if (on && /^(LI|DT|DD)$/.test(c.tagName)) {
        var lead = tightLead(c);
        if (lead) out.push(lead);
      }
      walk(c);
    }
  })(root);
  return out;
}

function enhanceChapter(marker, t, ui) {
  var key = marker.getAttribute('data-pb-chapter');
  var root = closest(marker, 'main') || document.body;
  var start = $$(root, '.pb-chapter-start').filter(function (m) { return m.getAttribute('data-pb-chapter') === key; })[0] || null;
  var leaves = chapterLeaves(root, start, marker);
  leaves.forEach(function (leaf, i) { leaf.setAttribute('data-pb-leaf', String(i + 1)); });
  var base = marker.id || 'pb-chapter';
  var form = el('form', { 'class': 'pb-form', method: 'dialog', id: base + '-form' });
  form.pbScope = root;
  form.pbLeaves = leaves;
  var box = el('details', { 'class': 'pb-note pb-doc-note' });
  box.appendChild(el('summary', null, t.comment_document));
  box.appendChild(el('label', { 'class': 'pb-visually-hidden', 'for': base + '-comment' }, t.comment_document));
  box.appendChild(el('textarea', { id: base + '-comment', name: 'pb.comment', rows: '3' }));
  form.appendChild(box);
  form.appendChild(el('div', { 'class': 'pb-actions' }));
  marker.appendChild(form);
  marker.hidden = false;
  root.classList.add('pb-prose');
  // The components of this chapter, in page order: their exports come first.
  var components = $$(root, '.pb-doc').filter(function (d) {
    return d !== marker && !d.hasAttribute('data-pb-chapter') && leafOrder(start, d) && leafOrder(d, marker);
  });
  form.pbParts = function () {
    return components.filter(function (d) { return d.pbExport; }).map(function (d) { return d.pbExport(); });
  };
  return form;
}

/** Whether `a` comes before `b` in the page (a missing `a` comes before everything). */
function leafOrder(a, b) {
  return !a || !!(a.compareDocumentPosition(b) & 4);
}
