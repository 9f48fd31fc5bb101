// ---------------------------------------------------------------------------------------------
// Prioritize (engine/src/components/prioritize.rs): a list to rank. Its form decoded and
// exported; on the page ▲/▼ and Alt+arrows keep focus on the moved item, the position select
// moves it, a grip drags it (mouse, pen and touch alike), remove with Undo, add your own.

register('prioritize', {
  decode: decodeRank,
  export: function (b, answer) { return exportRank(b.model, answer); },
  enhance: enhancePrioritize
});

/** `rank_form`. */
function decodeRank(b, notices) {
  var block = b.id;
  var model = b.model;
  var values = b.values;
  var state = listState(block, model, values);
  var removed = state.removed;
  var before = state.entries;
  var n = before.length;
  var requested = before.map(function (_, k) {
    var v = values('pos.' + k)[0];
    if (v === undefined) return k + 1;
    var p = parseIndex(v);
    if (!(p >= 1 && p <= n)) {
      throw new AnswersError(block, 'pos.' + k, '"' + v + '" is not a position in this list of ' + n + '; reload the form');
    }
    return p;
  });
  // A move is resolved against the list as rendered, before the selects reorder it.
  var asRendered = before.slice();
  var moved = applyListOp(block, model, asRendered, removed, b.op, cleanText(values('add')[0]));
  var order = orderByPositions(requested).map(function (k) { return before[k]; })
    .filter(function (e) { return indexOfEntry(asRendered, e) >= 0; });
  // Restored and added entries take their place in the edited list.
  asRendered.forEach(function (e, k) {
    if (indexOfEntry(order, e) < 0) order.splice(Math.min(k, order.length), 0, e);
  });
  if (moved) {
    var at = indexOfEntry(order, before[moved[0]]);
    if (at >= 0) {
      var to = Math.max(0, Math.min(order.length - 1, at + moved[1]));
      order.splice(to, 0, order.splice(at, 1)[0]);
    }
  }
  if (!order.length) notices.push(noticeSubject('prioritize', model) + ': every item was removed; restore or add one');
  checkPermutation(block, model, order, removed);
  return { order: order, removed: removed, note: listNote(b) };
}

/** `export_rank` (spec §4.3). */
function exportRank(model, a) {
  var edited = a.removed.length > 0 || a.order.some(function (e) { return typeof e !== 'number'; });
  var kept = a.order.filter(function (e) { return typeof e === 'number'; });
  var reordered = kept.some(function (e, i) { return i > 0 && kept[i - 1] > e; });
  var tag = edited ? 'reader edited the list' : reordered ? 'reader reordered' : 'reader kept the order unchanged';
  var out = header('Priority order', tag, model.from, model.title);
  // Every item removed: no empty list between the header and the rest.
  out = a.order.length ? out + a.order.map(function (e, n) {
    if (typeof e !== 'number') return (n + 1) + '. ' + reviewerText(e.added) + ' \u2014 (added by reader)';
    var item = model.items[e];
    return (n + 1) + '. ' + item.label + (item.context != null ? ' \u2014 ' + item.context : '');
  }).join('\n') : rtrim(out);
  return out + removedLine(model, a.removed) + footer(a.note, model.prompt);
}

/**
 * `order_by_positions`: the rendered entries in the order the position selects ask for. The
 * selects the reader changed say where their entries go; the rest keep their order around them.
 */
function orderByPositions(requested) {
  var n = requested.length;
  var ks = requested.map(function (_, k) { return k; });
  var moved = function (k) { return requested[k] !== k + 1; };
  var movers = ks.filter(moved).sort(function (a, b) { return requested[a] - requested[b] || a - b; });
  var slots = ks.map(function () { return -1; });
  movers.forEach(function (k) {
    var want = Math.min(Math.max(requested[k], 1), n) - 1;
    // The wanted place, or the nearest free one after it, or before it.
    var s = want;
    while (s < n && slots[s] >= 0) s++;
    if (s === n) {
      s = want - 1;
      while (slots[s] >= 0) s--;
    }
    slots[s] = k;
  });
  var kept = ks.filter(function (k) { return !moved(k); });
  return slots.map(function (k) { return k >= 0 ? k : kept.shift(); });
}

// ---------------------------------------------------------------------------------------------
// The list on the page.

function enhancePrioritize(section, ui) {
  var id = section.getAttribute('data-pb-block');
  var L;

  function makeRow(entry) {
    var label = labelOf(L.model, entry);
    var isItem = typeof entry === 'number';
    var li = el('li', { 'class': 'pb-rank-item' + (isItem ? '' : ' pb-added'), 'data-pb-item': isItem ? L.model.items[entry].id : null });
    li.appendChild(el('input', { type: 'hidden', name: id + '.item', value: isItem ? 'i:' + L.model.items[entry].id : 'a:' + label }));
    li.appendChild(el('span', { 'class': 'pb-rank-label' }, label));
    var context = isItem ? L.model.items[entry].context : '(' + ui.t.added_by_you + ')';
    if (context != null) {
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('span', { 'class': 'pb-context' }, context));
    }
    var controls = el('span', { 'class': 'pb-rank-controls' });
    var selectId = newId(section);
    controls.appendChild(el('select', { id: selectId, name: id + '.pos.0', 'aria-label': fill(ui.t.position_of, label) }));
    controls.appendChild(el('button', { type: 'submit', 'class': 'pb-move', name: id + '.op', value: 'up:0', 'aria-label': fill(ui.t.move_up, label) }, '\u25b2'));
    controls.appendChild(el('button', { type: 'submit', 'class': 'pb-move', name: id + '.op', value: 'down:0', 'aria-label': fill(ui.t.move_down, label) }, '\u25bc'));
    controls.appendChild(el('button', { type: 'submit', 'class': 'pb-remove', name: id + '.op', value: 'remove:0', 'aria-label': fill(ui.t.remove, label) }, '\u2715'));
    li.appendChild(controls);
    enhanceRow(li);
    return li;
  }

  function enhanceRow(li) {
    li.setAttribute('data-pb-label', $(li, '.pb-rank-label').textContent);
    var moves = $$(li, '.pb-move');
    if (moves[0]) moves[0].setAttribute('aria-keyshortcuts', 'Alt+ArrowUp');
    if (moves[1]) moves[1].setAttribute('aria-keyshortcuts', 'Alt+ArrowDown');
    if (!$(li, '.pb-grip')) li.insertBefore(el('span', { 'class': 'pb-grip', 'aria-hidden': 'true' }), li.firstChild);
  }

  /** Names, positions and button states follow the rows' order (what a plain submit posts). */
  function renumber() {
    var rows = L.rows();
    var n = rows.length;
    rows.forEach(function (li, k) {
      // Lists over 50 items have number fields instead of selects (no n-squared options).
      var select = $(li, 'select, input[type="number"]');
      select.name = id + '.pos.' + k;
      if (select.tagName === 'INPUT') select.max = String(n);
      else if (select.options.length !== n) {
        while (select.options.length) select.remove(0);
        for (var p = 1; p <= n; p++) select.appendChild(el('option', { value: String(p) }, String(p)));
      }
      select.value = String(k + 1);
      $$(li, 'button[name="' + id + '.op"]').forEach(function (b) {
        var verb = b.value.split(':')[0];
        b.value = verb + ':' + k;
        // aria-disabled, not disabled: focus stays on a button that just moved its item to an end.
        b.disabled = false;
        var off = (verb === 'up' && k === 0) || (verb === 'down' && k === n - 1);
        if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
      });
    });
  }

  /**
   * Moves a row to position `to` (0-based). The rows it passes move, not the row itself, so
   * focus inside it and a drag's pointer capture on its grip both survive.
   */
  function moveTo(li, to, quiet) {
    var rows = L.rows();
    var from = rows.indexOf(li);
    to = Math.max(0, Math.min(rows.length - 1, to));
    if (from === to) return false;
    var k;
    if (to < from) for (k = from - 1; k >= to; k--) L.list.insertBefore(rows[k], li.nextSibling);
    else for (k = from + 1; k <= to; k++) L.list.insertBefore(rows[k], li);
    renumber();
    if (!quiet) ui.announce(L.placeMessage(li, ui.t.item_moved));
    return true;
  }

  L = listBlock(section, ui, {
    listSelector: 'ol.pb-rank',
    makeRow: makeRow,
    changed: renumber,
    removedMessage: ui.t.item_removed,
    addedMessage: function (li) { return L.placeMessage(li, ui.t.item_added); },
    click: function (event, button, value) {
      var verb = value.split(':')[0];
      if (verb !== 'up' && verb !== 'down') return;
      event.preventDefault();
      if (button.getAttribute('aria-disabled') === 'true') return;
      var li = closest(button, 'li');
      moveTo(li, L.rows().indexOf(li) + (verb === 'up' ? -1 : 1));
    }
  });
  L.rows().forEach(enhanceRow);
  renumber();

  L.list.addEventListener('change', function (event) {
    if (event.target.tagName !== 'SELECT' && event.target.type !== 'number') return;
    var li = closest(event.target, 'li');
    var to = parseInt(event.target.value, 10) - 1;
    if (isNaN(to) || !moveTo(li, to)) renumber();
  });
  L.list.addEventListener('keydown', function (event) {
    if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    if (event.target.tagName === 'SELECT') return; // Alt+Down opens a select's list.
    var li = closest(event.target, 'li');
    if (!li) return;
    event.preventDefault();
    moveTo(li, L.rows().indexOf(li) + (event.key === 'ArrowUp' ? -1 : 1));
  });

  // Dragging by the grip with pointer events: mouse, pen and touch share one path.
  var drag = null;
  L.list.addEventListener('pointerdown', function (event) {
    var grip = closest(event.target, '.pb-grip');
    if (!grip || event.button > 0) return;
    var li = closest(grip, 'li');
    event.preventDefault();
    if (grip.setPointerCapture) grip.setPointerCapture(event.pointerId);
    drag = { li: li, grip: grip, from: L.rows().indexOf(li), pointer: event.pointerId };
    li.classList.add('pb-dragging');
  });
  L.list.addEventListener('pointermove', function (event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    // The new position is the number of other rows whose middle is above the pointer.
    var to = L.rows().filter(function (row) {
      var r = row.getBoundingClientRect();
      return row !== drag.li && event.clientY > r.top + r.height / 2;
    }).length;
    moveTo(drag.li, to, true);
  });
  var end = function (event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    var d = drag;
    drag = null;
    d.li.classList.remove('pb-dragging');
    if (event.type === 'pointercancel') moveTo(d.li, d.from, true);
    else if (L.rows().indexOf(d.li) !== d.from) ui.announce(L.placeMessage(d.li, ui.t.item_moved));
  };
  L.list.addEventListener('pointerup', end);
  L.list.addEventListener('pointercancel', end);
  L.list.addEventListener('lostpointercapture', function (event) {
    if (drag && event.pointerId === drag.pointer) end({ type: 'pointerup', pointerId: event.pointerId });
  });
  section.addEventListener('keydown', function (event) {
    if (drag && event.key === 'Escape') {
      moveTo(drag.li, drag.from, true);
      end({ type: 'pointercancel', pointerId: drag.pointer });
    }
  });
  return L;
}
