// ---------------------------------------------------------------------------------------------
// Lists (engine/src/components/list.rs), shared by prioritize and allocate: the posted list and
// its edits, the export's header and footer, and on the page a removed list with Undo and an
// add box.

// A list entry is an authored item index (a number) or an added label ({ added: label }).
function same(a, b) {
  return typeof a === 'number' ? a === b : typeof b !== 'number' && a.added === b.added;
}
function indexOfEntry(list, e) {
  for (var i = 0; i < list.length; i++) if (same(list[i], e)) return i;
  return -1;
}

function itemIndexOr(model, id) {
  for (var i = 0; i < model.items.length; i++) if (model.items[i].id === id) return i;
  return { added: id };
}

function labelOf(model, entry) {
  return typeof entry === 'number' ? model.items[entry].label : entry.added;
}

/** `item_index`. */
function itemIndex(block, field, model, id) {
  var i = itemIndexOr(model, id);
  if (typeof i === 'number') return i;
  throw new AnswersError(block, field, '"' + id + '" is not an item id; the ids are ' +
    model.items.map(function (it) { return it.id; }).join(', '));
}

/** `list_state`: the posted list (`i:<id>` / `a:<label>`) and the removed items. */
function listState(block, model, values) {
  var removed = [];
  values('removed').forEach(function (id) {
    var i = itemIndex(block, 'removed', model, id);
    if (removed.indexOf(i) < 0) removed.push(i);
  });
  var posted = values('item');
  var entries = [];
  if (!posted.length) {
    model.items.forEach(function (_, i) { if (removed.indexOf(i) < 0) entries.push(i); });
  } else {
    posted.forEach(function (v) {
      if (v.indexOf('i:') === 0) entries.push(itemIndex(block, 'item', model, v.slice(2)));
      else if (v.indexOf('a:') === 0) {
        var label = cleanText(v.slice(2));
        if (label == null) throw new AnswersError(block, 'item', 'an added item has an empty label');
        entries.push({ added: label });
      } else throw new AnswersError(block, 'item', '"' + v + '" is not a list entry; reload the form');
    });
  }
  return { entries: entries, removed: removed };
}

/** `apply_list_op`: remove, restore and add; returns the [position, direction] of a move. */
function applyListOp(block, model, entries, removed, op, add) {
  var moved = null;
  if (op != null) {
    var colon = op.indexOf(':');
    var name = colon < 0 ? op : op.slice(0, colon);
    var arg = colon < 0 ? '' : op.slice(colon + 1);
    var at = function () {
      var k = parseIndex(arg);
      if (!(k < entries.length)) {
        throw new AnswersError(block, 'op', '"' + arg + '" is not a position in the list; reload the form');
      }
      return k;
    };
    if (name === 'up') moved = [at(), -1];
    else if (name === 'down') moved = [at(), 1];
    else if (name === 'remove') {
      var e = entries.splice(at(), 1)[0];
      // An item already removed (a hand-made post lists it too) is not removed twice.
      if (typeof e === 'number' && removed.indexOf(e) < 0) removed.push(e);
    } else if (name === 'restore') {
      var i = itemIndex(block, 'op', model, arg);
      var r = removed.indexOf(i);
      if (r >= 0) {
        removed.splice(r, 1);
        // Back before the first authored item that came after it: its authored place.
        var to = 0;
        while (to < entries.length && !(typeof entries[to] === 'number' && entries[to] > i)) to++;
        entries.splice(to, 0, i);
      }
    } else if (name !== 'add') throw new AnswersError(block, 'op', '"' + name + '" is not a list action');
  }
  if (add != null) entries.push({ added: add });
  removed.sort(function (a, b) { return a - b; });
  return moved;
}

/** A posted order names every kept item once and no removed one. */
function checkPermutation(block, model, order, removed) {
  var seen = model.items.map(function () { return false; });
  order.forEach(function (e) {
    if (typeof e !== 'number') return;
    if (removed.indexOf(e) >= 0) throw new AnswersError(block, 'order', '"' + model.items[e].id + '" is both in the order and removed');
    if (seen[e]) throw new AnswersError(block, 'order', '"' + model.items[e].id + '" appears twice');
    seen[e] = true;
  });
  var missing = model.items.filter(function (_, i) { return !seen[i] && removed.indexOf(i) < 0; });
  if (missing.length) {
    throw new AnswersError(block, 'order', 'the order must list every kept item; missing ' +
      missing.map(function (it) { return it.id; }).join(', ') + ' (list it, or put it in "removed")');
  }
}

/** The block note, where the page has a note box for it (none when its note field is off). */
function listNote(b) {
  return $(b.section, '[name="' + b.id + '.note"]') ? cleanText(b.values('note')[0]) : null;
}

/** `notice_subject`: how a notice names its block, by its title or what it is. */
function noticeSubject(kind, model) {
  if (model.title != null) return '\u201c' + rtrim(model.title) + '\u201d';
  return kind === 'prioritize' ? 'The list to rank' : kind === 'allocate' ? 'The split' : 'The ' + kind + ' block';
}

function header(name, tag, from, title) {
  if (from != null) return name + ' (' + tag + ') \u2192 ' + from + '\n\n';
  if (title != null) return '## ' + title + ' (' + tag + ')\n\n';
  return '(' + tag + ')\n\n';
}

function removedLine(model, removed) {
  return removed.length ? '\n\nRemoved by reader: ' + removed.map(function (i) { return model.items[i].label; }).join('; ') : '';
}

function footer(note, prompt) {
  var out = '';
  if (note != null) out += '\n\nNote: ' + reviewerText(note);
  if (prompt != null && rtrim(prompt)) out += '\n\n' + prompt;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The list on the page: a removed list with Undo, an add box.

function listBlock(section, ui, hooks) {
  var id = section.getAttribute('data-pb-block');
  var model = JSON.parse(section.getAttribute('data-pb-model'));
  var list = $(section, hooks.listSelector);
  var addInput = $(section, '.pb-add input');
  var self = {
    id: id, model: model, list: list, section: section,
    rows: function () { return $$(list, ':scope > li'); },
    label: function (li) { return li.getAttribute('data-pb-label'); },
    entryOf: function (li) {
      var v = $(li, 'input[name="' + id + '.item"]').value;
      return v.indexOf('i:') === 0 ? itemIndexOr(model, v.slice(2)) : { added: v.slice(2) };
    },
    /** `template` filled with the row's label, its position (from 1) and the number of rows. */
    placeMessage: function (li, template) {
      var rows = self.rows();
      return fill(template, self.label(li), rows.indexOf(li) + 1, rows.length);
    }
  };

  function removedBox() {
    var box = $(section, '.pb-removed');
    if (!box) {
      box = el('div', { 'class': 'pb-removed' });
      box.appendChild(el('p', null, ui.t.removed));
      box.appendChild(el('ul'));
      var anchor = $(section, '.pb-add') || list.nextSibling;
      list.parentNode.insertBefore(box, hooks.afterList ? hooks.afterList() : anchor);
    }
    return box;
  }

  function refreshRemoved() {
    var box = $(section, '.pb-removed');
    if (box) box.hidden = !$(box, 'li');
  }

  /** Removes a row: it goes to the Removed list with an Undo button. */
  self.remove = function (li) {
    var at = self.rows().indexOf(li);
    var entry = self.entryOf(li);
    var label = self.label(li);
    var extra = hooks.beforeRemove ? hooks.beforeRemove(li, at) : null;
    li.parentNode.removeChild(li);
    var row = el('li');
    if (typeof entry === 'number') {
      row.appendChild(el('input', { type: 'hidden', name: id + '.removed', value: model.items[entry].id }));
    }
    row.appendChild(el('span', null, label));
    row.appendChild(document.createTextNode(' '));
    var undo = el('button', { type: 'button', 'class': 'pb-undo', 'aria-label': fill(ui.t.undo_remove, label) }, ui.t.undo);
    row.appendChild(undo);
    undo.pbUndo = { li: li, at: at, extra: extra };
    $(removedBox(), 'ul').appendChild(row);
    refreshRemoved();
    hooks.changed();
    focus(undo);
    ui.announce(fill(hooks.removedMessage, label));
  };

  /** Undo (our button) or Restore (the server's, after a no-JavaScript edit). */
  self.restore = function (button) {
    var info = button.pbUndo;
    var li;
    var at;
    if (info) {
      li = info.li;
      at = Math.min(info.at, self.rows().length);
    } else {
      var i = itemIndexOr(model, button.value.replace(/^restore:/, ''));
      if (typeof i !== 'number') return;
      li = hooks.makeRow(i);
      // As the server restores: before the first authored item that came after it.
      var rows = self.rows();
      for (at = 0; at < rows.length; at++) {
        var e = self.entryOf(rows[at]);
        if (typeof e === 'number' && e > i) break;
      }
    }
    var row = closest(button, 'li');
    row.parentNode.removeChild(row);
    list.insertBefore(li, self.rows()[at] || null);
    if (hooks.afterRestore) hooks.afterRestore(li, info ? info.extra : null, !info);
    refreshRemoved();
    hooks.changed();
    focus($(li, '.pb-remove'));
    ui.announce(self.placeMessage(li, ui.t.item_restored));
  };

  self.add = function () {
    var label = cleanText(addInput.value);
    if (label == null) {
      focus(addInput);
      return;
    }
    var li = hooks.makeRow({ added: label });
    list.appendChild(li);
    addInput.value = '';
    hooks.changed();
    focus(addInput);
    ui.announce(hooks.addedMessage(li));
  };

  section.addEventListener('click', function (event) {
    var button = closest(event.target, 'button');
    if (!button || !section.contains(button)) return;
    var value = button.value || '';
    if (button.classList.contains('pb-undo') || /^restore:/.test(value)) {
      event.preventDefault();
      self.restore(button);
    } else if (value === 'add') {
      event.preventDefault();
      self.add();
    } else if (/^remove:/.test(value)) {
      event.preventDefault();
      self.remove(closest(button, 'li'));
    } else if (hooks.click) hooks.click(event, button, value);
  });
  if (addInput) {
    addInput.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        self.add();
      }
    });
  }
  return self;
}
