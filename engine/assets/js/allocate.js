// ---------------------------------------------------------------------------------------------
// Allocate (engine/src/components/allocate.rs): a total split among categories. Its form
// decoded and exported, and on the page a slider and a field for each category over a stacked
// bar; the arithmetic of the split is in split.js.

register('allocate', {
  decode: decodeSplit,
  export: function (b, answer, notices) {
    var split = exportSplit(b.model, answer);
    if (split.notice) notices.push(noticeSubject('allocate', b.model) + ': ' + split.notice);
    return split.text;
  },
  enhance: enhanceAllocate
});

/** `split_form`'s refusal of a typed weight: the same words in the decode and in the field. */
function weightError(block, k, label, raw) {
  return new AnswersError(block, 'w.' + k, 'the weight of "' + label + '" must be a number from 0 to 10^15, not "' + raw + '"');
}

/** `split_form`. Weights are kept by authored index in a sparse array, summed in index order. */
function decodeSplit(b, notices) {
  var block = b.id;
  var model = b.model;
  var values = b.values;
  var op = b.op;
  var state = listState(block, model, values);
  var removed = state.removed;
  var weighted = state.entries.map(function (e, k) {
    var posted = values('w.' + k)[0];
    var raw = typedText(posted || '');
    // No field at all (a hand-made post): the authored share.
    var w = posted === undefined ? (typeof e === 'number' ? model.weights[e] : 0) : raw ? parseWeight(raw) : 0;
    if (!(w >= 0 && w <= MAX)) throw weightError(block, k, labelOf(model, e), raw);
    return { e: e, w: w };
  });
  var kept = keepRaised(model.total, weighted.map(function (x) { return x.w; }),
    weighted.map(function (_, k) { return shownWeight(values('was.' + k)[0]); }));
  if (kept) weighted.forEach(function (x, k) { x.w = kept[k]; });
  var list = weighted.map(function (x) { return x.e; });
  applyListOp(block, model, list, removed, op && !/^(up|down)/.test(op) ? op : null,
    cleanText(values('add')[0]));
  // Each listed entry takes the weight of the first posted entry equal to it that no other
  // entry took (two added categories with one label keep their own); null when none is left.
  // The row a `remove:K` took out is the one removed, whatever other row shares its label.
  var taken = [];
  if (op && op.indexOf('remove:') === 0) taken[parseIndex(op.slice(7))] = true;
  var posted = list.map(function (e) {
    for (var k = 0; k < weighted.length; k++) {
      if (!taken[k] && same(weighted[k].e, e)) {
        taken[k] = true;
        return weighted[k].w;
      }
    }
    return null;
  });
  var weights = [];
  var added = [];
  var back = [];
  var total = function () {
    var s = 0;
    weights.forEach(function (w, i) { if (!back[i]) s += w; });
    added.forEach(function (a) { s += a.w; });
    return s;
  };
  var scale = function (factor) {
    weights.forEach(function (w, i) { if (!back[i]) weights[i] = w * factor; });
    added.forEach(function (a) { a.w *= factor; });
  };
  var removedWeight = 0;
  weighted.forEach(function (x, k) { if (!taken[k]) removedWeight += x.w; });
  list.forEach(function (e, k) {
    var w = posted[k] == null ? 0 : posted[k];
    if (typeof e === 'number') weights[e] = w;
    else added.push({ label: e.added, w: w });
  });
  // A category removed in this post hands its weight to the rest in proportion.
  if (removedWeight > 0) {
    var rest = total();
    scale(rest > 0 ? (rest + removedWeight) / rest : 1);
  }
  // A restored one comes back at its authored share; the others make room in proportion.
  var restored = 0;
  list.forEach(function (e, k) {
    if (typeof e === 'number' && posted[k] == null) {
      weights[e] = model.weights[e];
      back[e] = true;
      restored += model.weights[e];
    }
  });
  if (restored > 0) {
    var others = total();
    if (others > 0) scale(Math.max((others - restored) / others, 0));
  }
  if (!list.length) notices.push(noticeSubject('allocate', model) + ': every category was removed; restore or add one');
  return { weights: weights, added: added, removed: removed, note: listNote(b) };
}

/** `resolve_split`: the final split summing to `total`, and a notice when it was rescaled. */
function resolveSplit(model, ans) {
  var kept = [];
  model.items.forEach(function (_, i) { if (ans.removed.indexOf(i) < 0) kept.push(i); });
  var base = rescale(kept.map(function (i) { return model.weights[i]; }), model.total);
  var entries = kept.map(function (i, j) { return { e: i, w: i in ans.weights ? ans.weights[i] : base[j] }; });
  ans.added.forEach(function (a) { entries.push({ e: { added: a.label }, w: a.w }); });
  var s = sum(entries.map(function (x) { return x.w; }));
  var notice = null;
  if (Math.abs(s - model.total) > 1e-6) {
    var scaled = rescale(entries.map(function (x) { return x.w; }), model.total);
    entries.forEach(function (x, i) { x.w = scaled[i]; });
    var u = model.unit;
    notice = s <= 0
      ? 'every weight was 0, so the ' + formatNumber(model.total) + u + ' was split evenly'
      : 'the weights summed to ' + formatNumber(Math.round(s * 100) / 100) + u + ', so they were rescaled to ' + formatNumber(model.total) + u;
  }
  return { entries: entries, notice: notice };
}

/** `export_split` (spec §4.5.3). */
function exportSplit(model, ans) {
  var r = resolveSplit(model, ans);
  var shown = roundToTotal(r.entries.map(function (x) { return x.w; }), model.total);
  var authored = roundToTotal(model.weights, model.total);
  var edited = ans.removed.length > 0 || ans.added.length > 0;
  var moved = r.entries.some(function (x, i) { return typeof x.e === 'number' && authored[x.e] !== shown[i]; });
  var tag = edited ? 'reader edited the list' : moved ? 'reader reweighted' : 'reader kept the allocation unchanged';
  var u = model.unit;
  var out = header('Allocation', tag, model.from, model.title);
  out += r.entries.map(function (x, i) {
    var w = formatNumber(shown[i]);
    if (typeof x.e !== 'number') return '- ' + reviewerText(x.e.added) + ': ' + w + u + ' \u2014 (added by reader)';
    var item = model.items[x.e];
    var delta = authored[x.e] === shown[i] ? '(unchanged)' : '(was ' + formatNumber(authored[x.e]) + u + ')';
    return '- ' + item.label + ': ' + w + u + ' ' + delta + (item.context != null ? ' \u2014 ' + item.context : '');
  }).join('\n');
  out += removedLine(model, ans.removed) + '\n\nTotal: ' + formatNumber(model.total) + u;
  return { text: out + footer(ans.note, model.prompt), notice: r.notice };
}

// ---------------------------------------------------------------------------------------------
// The split on the page.
//
// Rebalancing: an explicit "unallocated" remainder, with a proportional fallback. Lowering a
// category puts what it gave up in a visible remainder; raising one spends that remainder
// first and only then takes from the others in proportion to their shares. Why: a change never
// silently moves values the reader did not touch while there is a remainder to use (a
// screen-reader user hears only the slider they move), an exact split can be typed category by
// category (lower first, then raise), and the first drag upward is never stuck at a full total.
// The bars, remainder included, always sum to `total`. A remainder left at export time is
// spread in proportion by the export, exactly as the server does for a no-JavaScript post, and
// the reader is told so. Removing a category hands its share to the rest in proportion
// (contract §4); an added one enters at 0. Values live in whole steps (1, or 0.01 for a
// fractional total) so the fields, the bars and the export agree to the last digit.
//
// Typing: a weight typed into a field is applied when the field is left, as a slider move to
// that value, so the number typed is the share the reader gets; the form without the script
// means the same (`keep_raised_weight`, through the `bN.was.K` field each row carries with what
// it shows, kept current here). A weight over 10^15 is not applied: the field keeps the text and
// shows the refusal the decode (and the server) gives for it, until the reader fixes it.

function enhanceAllocate(section, ui) {
  // The hooks run on the reader's actions, once everything below is set up.
  var L = listBlock(section, ui, {
    listSelector: 'ul.pb-alloc',
    makeRow: makeRow,
    afterList: function () { return totalLine.nextSibling; },
    changed: function () { write(units()); snapshot = null; },
    removedMessage: ui.t.category_removed,
    addedMessage: function (li) { return fill(ui.t.category_added, L.label(li), show(0)); },
    beforeRemove: function (li, at) {
      var u = units();
      var w = u[at];
      var rest = u.filter(function (_, i) { return i !== at; });
      var target = sum(rest) + w;
      var shares = distribute(rest, target);
      L.rows().forEach(function (row, i) {
        if (i === at) return;
        // A field holding a refused weight keeps it; its slider takes the share.
        var number = $(row, '.pb-weight');
        (overCap(number.value) ? $(row, '.pb-range') : number).value = formatNumber(shares[i < at ? i : i - 1] * step);
      });
      stack.removeChild(li.pbSeg);
      // What Undo needs to put everything back exactly if nothing moved in between.
      return { w: w, before: u, after: shares };
    },
    afterRestore: function (li, removal, fromServer) {
      var w = fromServer ? roundToTotal(model.weights, total)[itemIndexOr(model, li.getAttribute('data-pb-item'))] / step
        : removal && removal.w;
      if (!li.pbSeg.parentNode) stack.insertBefore(li.pbSeg, freeBar);
      var k = L.rows().indexOf(li);
      var u = units();
      var others = u.filter(function (_, i) { return i !== k; });
      if (removal && !fromServer && removal.before.length === u.length
        && others.every(function (x, i) { return x === removal.after[i]; })) {
        write(removal.before);
        return;
      }
      u[k] = 0;
      write(setUnits(u, k, Math.round(w || 0), T));
    }
  });
  var id = L.id;
  var model = L.model;
  var total = model.total;
  var step = total % 1 === 0 ? 1 : 0.01;
  var T = Math.round(total / step);
  var unit = model.unit;
  var snapshot = null;
  var totalLine = $(section, '.pb-total');
  var stack = el('div', { 'class': 'pb-stack', 'aria-hidden': 'true' });
  var free = el('span', { 'class': 'pb-unallocated' });
  var freeBar = el('span', { 'class': 'pb-seg pb-seg-free' });

  var show = function (units) { return formatNumber(Math.round(units) * step) + unit; };
  var toUnits = function (text) {
    var w = parseWeight(typedText(text));
    return isFinite(w) && w >= 0 ? Math.round(w / step) : NaN;
  };

  function units() {
    return L.rows().map(function (li) {
      var number = $(li, '.pb-weight');
      var u = toUnits(overCap(number.value) ? $(li, '.pb-range').value : number.value || '0');
      return isNaN(u) ? 0 : Math.min(u, T);
    });
  }

  /** Typed text the decode refuses for being over 10^15 (the sliders would read it as 100%). */
  function overCap(text) {
    return parseWeight(typedText(text)) > MAX;
  }

  /** What the page shows of row `li` (`bN.was.K`), posted back beside its weight. */
  function shownField(li) {
    return $(li, 'input[name^="' + id + '.was."]');
  }

  function makeRow(entry) {
    var label = labelOf(model, entry);
    var isItem = typeof entry === 'number';
    var li = el('li', { 'class': 'pb-alloc-item' + (isItem ? '' : ' pb-added'), 'data-pb-item': isItem ? model.items[entry].id : null });
    li.appendChild(el('input', { type: 'hidden', name: id + '.item', value: isItem ? 'i:' + model.items[entry].id : 'a:' + label }));
    var wid = newId(section);
    var context = isItem ? model.items[entry].context : null;
    var ctxId = context != null ? newId(section) : null;
    li.appendChild(el('label', { 'for': wid }, label + (rtrim(unit) ? ' (' + rtrim(unit) + ')' : '')));
    li.appendChild(el('input', { type: 'number', min: '0', step: 'any', inputmode: 'decimal', 'class': 'pb-weight', id: wid, name: id + '.w.0', value: '0', 'aria-describedby': ctxId }));
    li.appendChild(el('input', { type: 'hidden', name: id + '.was.0', value: '0' }));
    li.appendChild(el('meter', { 'aria-hidden': 'true', min: '0', max: formatNumber(total), value: '0' }));
    li.appendChild(el('button', { type: 'submit', 'class': 'pb-remove', name: id + '.op', value: 'remove:0', 'aria-label': fill(ui.t.remove, label) }, '\u2715'));
    if (context != null) li.appendChild(el('p', { 'class': 'pb-context', id: ctxId }, context));
    if (!isItem) li.appendChild(el('p', { 'class': 'pb-context' }, '(' + ui.t.added_by_you + ')'));
    enhanceRow(li, entry);
    return li;
  }

  function enhanceRow(li, entry) {
    var label = labelOf(model, entry === undefined ? L.entryOf(li) : entry);
    li.setAttribute('data-pb-label', label);
    var number = $(li, '.pb-weight');
    var labelEl = $(li, 'label');
    if (!labelEl.id) labelEl.id = newId(section);
    var range = el('input', {
      type: 'range', 'class': 'pb-range', min: '0', max: formatNumber(total), step: String(step),
      'aria-labelledby': labelEl.id, 'aria-describedby': number.getAttribute('aria-describedby')
    });
    number.parentNode.insertBefore(range, number);
    var seg = el('span', { 'class': 'pb-seg' });
    stack.insertBefore(seg, freeBar);
    li.pbSeg = seg;
  }

  /** Writes units (one per row, in row order) to every field, bar and text. */
  function write(u) {
    var rows = L.rows();
    var pool = T - sum(u);
    rows.forEach(function (li, k) {
      var value = formatNumber(u[k] * step);
      var number = $(li, '.pb-weight');
      var range = $(li, '.pb-range');
      var was = shownField(li);
      number.name = id + '.w.' + k;
      if (was) {
        was.name = id + '.was.' + k;
        was.value = value;
      }
      $(li, '.pb-remove').value = 'remove:' + k;
      // A refused weight stays as typed, for the reader to fix.
      if (toUnits(number.value) !== u[k] && !overCap(number.value)) number.value = value;
      range.value = value;
      range.setAttribute('aria-valuetext', show(u[k]) + (pool > 0 ? ', ' + fill(ui.t.unallocated, show(pool)) : ''));
      $(li, 'meter').value = u[k] * step;
      li.pbSeg.style.width = (T ? u[k] / T * 100 : 0) + '%';
      li.pbSeg.className = 'pb-seg pb-seg-' + (k % 6);
    });
    freeBar.style.width = (T ? Math.max(pool, 0) / T * 100 : 0) + '%';
    free.textContent = pool > 0 ? ' \u2014 ' + fill(ui.t.unallocated, show(pool)) : '';
    return pool;
  }

  function status(li) {
    var u = units();
    var pool = T - sum(u);
    var msg = fill(ui.t.weight_of, L.label(li), show(u[L.rows().indexOf(li)]));
    ui.announce(msg + (pool > 0 ? ', ' + fill(ui.t.unallocated, show(pool)) : ''));
  }

  totalLine.appendChild(free);
  stack.appendChild(freeBar);
  section.classList.add('pb-enhanced');
  totalLine.parentNode.insertBefore(stack, totalLine);
  L.rows().forEach(function (li) { enhanceRow(li); });
  write(units());

  // A slider move starts from the units as they were when the slider was reached.
  var takeSnapshot = function (event) {
    if (event.target.classList.contains('pb-range')) snapshot = units();
  };
  L.list.addEventListener('focusin', takeSnapshot);
  L.list.addEventListener('pointerdown', takeSnapshot);
  L.list.addEventListener('input', function (event) {
    var range = event.target;
    if (!range.classList.contains('pb-range')) return;
    var li = closest(range, 'li');
    var k = L.rows().indexOf(li);
    var number = $(li, '.pb-weight');
    var u = setUnits(snapshot || units(), k, toUnits(range.value), T);
    // The row's own slider moved: its value replaces a refused one.
    if (overCap(number.value)) {
      number.value = '';
      refuse(li, number, '');
    }
    write(u);
  });
  L.list.addEventListener('change', function (event) {
    var input = event.target;
    if (input.classList.contains('pb-weight')) commit(input);
    else if (input.classList.contains('pb-range')) status(closest(input, 'li'));
  });

  /**
   * A typed weight: applied as a slider move would be; text that is not a weight is undone. One
   * over 10^15 is not applied: the field keeps it and says why, in the words the decode (and so
   * "Copy answers" and the server) refuses it with.
   */
  function commit(input) {
    var li = closest(input, 'li');
    var k = L.rows().indexOf(li);
    var range = $(li, '.pb-range');
    var current = units();
    current[k] = toUnits(range.value);
    // Beside the field, the server's words without the field's name (`b1 w.0`), which the
    // reader has no use for there.
    var refused = overCap(input.value) ? weightError(id, k, L.label(li), typedText(input.value)).sentence : '';
    refuse(li, input, refused);
    if (refused) {
      ui.announce(refused);
      return;
    }
    var v = input.validity && input.validity.badInput ? NaN : rtrim(input.value) === '' ? 0 : toUnits(input.value);
    if (isNaN(v)) {
      input.value = range.value;
      return;
    }
    input.value = '';
    write(setUnits(current, k, v, T));
    snapshot = null;
    status(li);
  }
  /**
   * Shows `message` as the field's error (its validity message, and a line below it that the
   * field is described by), or clears it when `message` is empty.
   */
  function refuse(li, input, message) {
    var line = $(li, '.pb-weight-error');
    var described = (input.getAttribute('aria-describedby') || '').split(' ').filter(function (x) {
      return x && (!line || x !== line.id);
    });
    if (input.setCustomValidity) input.setCustomValidity(message);
    if (!message) {
      if (line) line.parentNode.removeChild(line);
      input.removeAttribute('aria-invalid');
    } else {
      if (!line) {
        line = el('p', { 'class': 'pb-weight-error', id: newId(section) });
        li.appendChild(line);
      }
      line.textContent = message;
      described.push(line.id);
      input.setAttribute('aria-invalid', 'true');
    }
    if (described.length) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
  }

  section.pbFlush = function () {
    var active = document.activeElement;
    if (active && active.classList && active.classList.contains('pb-weight') && section.contains(active) &&
      toUnits(active.value) !== toUnits($(closest(active, 'li'), '.pb-range').value)) commit(active);
  };
  return L;
}
