// ---------------------------------------------------------------------------------------------
// Comments on the prose (engine/src/prose.rs and the annotations of answers.rs): their fields
// decoded and exported, and on the page a Comment button for each leaf.

/** `prose::collapse`: runs of ASCII whitespace are one space, none at either end. */
function collapse(s) {
  return s.replace(/[ \t\n\f\r]+/g, ' ').replace(/^ | $/g, '');
}

/**
 * A leaf's visible text as `prose::texts` reads it from the parse: its text, a space for each
 * line break and before each table cell, without a footnote's back-link or the script's own
 * controls, collapsed.
 */
function leafText(leaf) {
  var out = '';
  (function walk(node) {
    for (var c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out += c.data;
      else if (c.nodeType === 1 && !c.classList.contains('footnote-backref') && !c.classList.contains('pb-leaf-ui')) {
        if (/^(TD|TH|BR)$/.test(c.tagName)) out += ' ';
        walk(c);
      }
    }
  })(leaf);
  return collapse(out);
}

/** The document's leaves by number (leaf N at N − 1): { elements, texts }; texts as asked for. */
function leavesOf(doc) {
  var elements = [];
  (doc.pbLeaves || $$(doc, '[data-pb-leaf]')).forEach(function (e) {
    var n = parseIndex(e.getAttribute('data-pb-leaf'));
    if (n >= 1) elements[n - 1] = e;
  });
  var texts = [];
  return {
    count: elements.length,
    element: function (n) { return elements[n - 1] || null; },
    text: function (n) {
      if (texts[n - 1] === undefined) texts[n - 1] = elements[n - 1] ? leafText(elements[n - 1]) : '';
      return texts[n - 1];
    }
  };
}

/** `prose::excerpt`: whole up to 72 characters, else cut at a space within 71 and `…`. */
function excerpt(text) {
  var cps = Array.from(text);
  if (cps.length <= 72) return text;
  var cut = 71;
  if (cps[71] !== ' ') {
    for (var i = 70; i > 0; i--) {
      if (cps[i] === ' ') {
        cut = i;
        break;
      }
    }
  }
  return cps.slice(0, cut).join('') + '\u2026';
}

/** `one_line`: `clean_text`, each line break a space. */
function oneLine(s) {
  var text = cleanText(s);
  return text == null ? null : text.replace(/[\r\n]/g, ' ');
}

/** `existing_leaf`. */
function existingLeaf(leaves, n, shown, field) {
  if (n >= 1 && n <= leaves.count && leaves.element(n)) return n;
  if (!leaves.count) {
    throw new AnswersError('', field, 'the document has no leaf ' + shown +
      ': it has no prose to comment on; leave the leaf out to comment on the whole document');
  }
  throw new AnswersError('', field, 'the document has no leaf ' + shown + '; its leaves are numbered 1 to ' + leaves.count);
}

/** `checked_quote`. */
function checkedQuote(leaves, leaf, quote, field) {
  var q = quote == null ? '' : collapse(quote);
  if (!q) return null;
  if (leaf == null) throw new AnswersError('', field, 'a quote needs the leaf it is from; give its number as the leaf');
  if (leaves.text(leaf).indexOf(q) < 0) {
    throw new AnswersError('', field, 'the quote is not in the text of leaf ' + leaf + '; copy it exactly as the page shows it');
  }
  return q;
}

/** `annotations_from_form`: the whole-document box, then each `pb.note.K` in the order of K. */
function annotationsFromPairs(leaves, pairs) {
  var notes = {};
  var ks = [];
  var comment = null;
  pairs.forEach(function (p) {
    var name = p[0];
    if (name === 'pb.comment') {
      if (comment === null) comment = p[1];
      return;
    }
    if (name.indexOf('pb.note.') !== 0) return;
    var rest = name.slice(8);
    var dot = rest.indexOf('.');
    var k = dot < 0 ? rest : rest.slice(0, dot);
    var field = dot < 0 ? '' : rest.slice(dot + 1);
    if (!/^[0-9]{1,9}$/.test(k) || !/^(leaf|quote|text)$/.test(field)) {
      throw new AnswersError('', name, 'is not a comment field; a comment posts pb.note.K.leaf, pb.note.K.quote and pb.note.K.text');
    }
    var n = parseInt(k, 10);
    if (!notes[n]) {
      notes[n] = {};
      ks.push(n);
    }
    if (!notes[n][field]) notes[n][field] = [name, p[1]];
  });
  var out = [];
  var whole = comment == null ? null : oneLine(comment);
  if (whole != null) out.push({ leaf: null, quote: null, text: whole });
  ks.sort(function (a, b) { return a - b; }).forEach(function (k) {
    var note = notes[k];
    var leaf = null;
    if (note.leaf && note.leaf[1] !== '') {
      var v = note.leaf[1];
      if (!/^\+?[0-9]+$/.test(v)) throw new AnswersError('', note.leaf[0], '"' + v + '" is not a leaf number; reload the form');
      leaf = existingLeaf(leaves, parseInt(v, 10), v, note.leaf[0]);
    }
    var quote = note.quote ? checkedQuote(leaves, leaf, note.quote[1], note.quote[0]) : null;
    var text = note.text ? oneLine(note.text[1]) : null;
    if (text != null) out.push({ leaf: leaf, quote: quote, text: text });
  });
  return out;
}

/** `export_annotations`: leaf order, whole-document comments last, each leaf quoted. */
function exportAnnotations(t, leaves, notes) {
  if (!notes.length) return '';
  var order = notes.map(function (a, i) { return { a: a, i: i }; });
  var key = function (x) { return x.a.leaf == null ? Infinity : x.a.leaf; };
  order.sort(function (x, y) { return key(x) - key(y) || x.i - y.i; });
  return '## ' + t.comments_heading + '\n' + order.map(function (x) {
    var a = x.a;
    var on = a.leaf == null ? t.comment_on_document : t.comment_on + ' "' + (a.quote != null ? a.quote : excerpt(leaves.text(a.leaf))) + '"';
    return '\n- ' + on + ' \u2014 ' + reviewerOneLine(a.text);
  }).join('');
}

// ---------------------------------------------------------------------------------------------
// Comments on the prose. Each leaf (`data-pb-leaf`) gets a small Comment button after it, shown
// on hover and on focus, so mouse, touch and keyboard reach it alike; a text selection inside
// one leaf offers "Comment on the selection", which keeps the selected text as the quote. A
// comment is a box after its leaf (after the table, for a row) holding the `pb.note.K.*`
// fields the server decodes and `exportFromPairs` reads.

function enhanceLeaves(form, ui) {
  // An mdBook chapter's form comments on the prose around it (`enhanceChapter`): its leaves
  // and their comment boxes are in `pbScope`, the boxes' fields joined to the form by id.
  var scope = form.pbScope || form;
  var leaves = form.pbLeaves || $$(form, '[data-pb-leaf]');
  if (!leaves.length) return;
  var mine = function (leaf) { return leaves.indexOf(leaf) >= 0; };
  var joined = function (attrs) {
    if (scope !== form) attrs.form = form.id;
    return attrs;
  };
  scope.classList.add('pb-commentable');
  // Numbers go on after any comments the page carried from a post.
  var next = 0;
  $$(form, 'input[name^="pb.note."]').forEach(function (f) {
    var k = parseInt(f.name.slice(8), 10);
    if (k >= next) next = k + 1;
  });
  var label = function (leaf, quote) {
    return quote != null ? quote : excerpt(leafText(leaf));
  };
  /** Where a leaf's controls go: after it, or in the last cell of a table row. */
  var place = function (leaf, node) {
    if (leaf.tagName === 'TR') leaf.lastElementChild.appendChild(node);
    else leaf.parentNode.insertBefore(node, leaf.nextSibling);
  };
  var buttonOf = function (leaf) { return leaf.pbComment; };

  leaves.forEach(function (leaf) {
    var button = el('button', {
      type: 'button', 'class': 'pb-leaf-ui pb-leaf-comment', 'aria-label': fill(ui.t.comment_on_text, label(leaf))
    }, '\u270e');
    button.pbLeaf = leaf;
    leaf.pbComment = button;
    place(leaf, button);
  });

  var selection = el('button', { type: 'button', 'class': 'pb-leaf-ui pb-sel-comment', hidden: '' }, ui.t.comment_selection);

  function notesOf(leaf) {
    return $$(scope, '.pb-leaf-note').filter(function (box) { return box.pbLeaf === leaf; });
  }

  function mark(leaf) {
    var said = notesOf(leaf).some(function (box) { return rtrim($(box, 'textarea').value); });
    leaf.classList.toggle('pb-commented', said);
    buttonOf(leaf).classList.toggle('pb-has-note', said);
  }

  function addNote(leaf, quote) {
    var k = next++;
    var n = leaf.getAttribute('data-pb-leaf');
    var about = label(leaf, quote);
    var box = el('div', { 'class': 'pb-leaf-ui pb-leaf-note' });
    box.pbLeaf = leaf;
    box.appendChild(el('input', joined({ type: 'hidden', name: 'pb.note.' + k + '.leaf', value: n })));
    if (quote != null) box.appendChild(el('input', joined({ type: 'hidden', name: 'pb.note.' + k + '.quote', value: quote })));
    var id = newId(form);
    box.appendChild(el('label', { 'for': id }, fill(ui.t.comment_on_text, about)));
    var area = el('textarea', joined({ id: id, name: 'pb.note.' + k + '.text', rows: '2' }));
    box.appendChild(area);
    box.appendChild(el('button', { type: 'button', 'class': 'pb-note-remove', 'aria-label': fill(ui.t.remove_comment, about) }, '\u2715'));
    // After the leaf's other comments; after the table, for a row.
    var anchor = leaf.tagName === 'TR' ? closest(leaf, 'table') : buttonOf(leaf);
    while (anchor.nextElementSibling && anchor.nextElementSibling.classList.contains('pb-leaf-note')) anchor = anchor.nextElementSibling;
    anchor.parentNode.insertBefore(box, anchor.nextSibling);
    area.focus();
    return box;
  }

  function removeNote(box) {
    var leaf = box.pbLeaf;
    box.parentNode.removeChild(box);
    mark(leaf);
    focus(buttonOf(leaf));
    ui.announce(ui.t.comment_removed);
  }

  scope.addEventListener('click', function (event) {
    var button = closest(event.target, 'button');
    if (!button || !scope.contains(button)) return;
    var box = closest(button, '.pb-leaf-note');
    if (button.pbLeaf ? !mine(button.pbLeaf) : button !== selection && !(box && mine(box.pbLeaf))) return;
    if (button.classList.contains('pb-leaf-comment')) {
      // One comment on the whole leaf: the button goes back to it.
      var open = notesOf(button.pbLeaf).filter(function (box) { return !$(box, 'input[name$=".quote"]'); })[0];
      if (open) focus($(open, 'textarea'));
      else addNote(button.pbLeaf, null);
    } else if (button === selection && selection.pbTarget) {
      var target = selection.pbTarget;
      selection.hidden = true;
      selection.pbTarget = null;
      addNote(target.leaf, target.quote);
    } else if (button.classList.contains('pb-note-remove')) removeNote(box);
  });
  // A click on "Comment on the selection" must not end the selection it is about.
  selection.addEventListener('mousedown', function (event) { event.preventDefault(); });
  scope.addEventListener('input', function (event) {
    var box = closest(event.target, '.pb-leaf-note');
    if (box && mine(box.pbLeaf)) mark(box.pbLeaf);
  });
  scope.addEventListener('keydown', function (event) {
    var box = event.key === 'Escape' && closest(event.target, '.pb-leaf-note');
    if (!box || !mine(box.pbLeaf)) return;
    event.preventDefault();
    if (!rtrim(event.target.value)) removeNote(box);
    else focus(buttonOf(box.pbLeaf));
  });

  /** The selection, when it lies in one leaf and its text is that leaf's: { leaf, quote }. */
  function selected() {
    var sel = window.getSelection && window.getSelection();
    if (!sel || !sel.rangeCount || sel.isCollapsed) return null;
    var range = sel.getRangeAt(0);
    var at = function (node) { return node.nodeType === 1 ? node : node.parentNode; };
    var leaf = closest(at(range.startContainer), '[data-pb-leaf]');
    if (!leaf || leaf !== closest(at(range.endContainer), '[data-pb-leaf]') || !mine(leaf)) return null;
    if (closest(at(range.startContainer), '.pb-leaf-ui')) return null;
    var quote = collapse(sel.toString());
    return quote && leafText(leaf).indexOf(quote) >= 0 ? { leaf: leaf, quote: quote } : null;
  }

  document.addEventListener('selectionchange', function () {
    if (document.activeElement === selection) return;
    var target = selected();
    if (!target) {
      selection.hidden = true;
      selection.pbTarget = null;
      return;
    }
    selection.pbTarget = target;
    if (selection.pbLeaf !== target.leaf) {
      selection.pbLeaf = target.leaf;
      if (target.leaf.tagName === 'TR') target.leaf.lastElementChild.appendChild(selection);
      else target.leaf.parentNode.insertBefore(selection, target.leaf.nextSibling);
    }
    selection.hidden = false;
  });
}
