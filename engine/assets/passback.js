// passback enhancement script. Plain ES5-style JavaScript, no framework, no build step, no eval,
// no inline code: it runs under `script-src 'self'`. Every widget it touches already works as a
// plain HTML form; the script keeps that form's fields in step with what the reader does, so the
// form still posts the right state, and it builds the copy-back export in the browser from those
// same fields (a port of engine/src/answers.rs: decode the form as `from_form` does, then export
// as `export` does), so pages with no server (mdBook, saved HTML) export exactly what the engine
// would.
(function () {
  'use strict';

  // ---------------------------------------------------------------------------------------------
  // Chrome strings (the engine's own are in engine/src/html/i18n.rs; the item-control labels
  // below repeat them so rows the script adds read like the ones the server renders).

  var STRINGS = {
    en: {
      spread: 'What was unallocated was spread in proportion.',
      copy: 'Copy answers', copied: 'Answers copied to the clipboard.',
      copyFailed: 'Could not copy automatically: select the text below and copy it.',
      nothing: 'Nothing is answered yet.', copiedText: 'The copied answers',
      clear: 'Clear answer', cleared: 'Answer cleared.',
      moved: '{} moved to position {} of {}', restored: '{} restored at position {} of {}',
      added: '{} added at position {} of {}', removed: '{} removed. Undo brings it back.',
      removedShare: '{} removed; its share went to the others in proportion. Undo brings it back.',
      addedShare: '{} added at {}', weight: '{}: {}', unallocated: '{} unallocated',
      undo: 'Undo', undoLabel: 'Undo removing {}', removedHead: 'Removed:',
      position: 'Position of {}', up: 'Move {} up', down: 'Move {} down', remove: 'Remove {}',
      addedBy: 'added by you', play: 'Play: {} (YouTube)', answers: 'Your answers',
      commentsHead: 'Comments on the text', on: 'On', onWhole: 'On the whole document',
      commentOn: 'Comment on \u201c{}\u201d', commentSel: 'Comment on the selection',
      removeComment: 'Remove the comment on \u201c{}\u201d', commentRemoved: 'Comment removed.',
      commentDoc: 'Comment on the whole document (optional)', copyPage: 'Copy all answers on this page'
    },
    he: {
      spread: 'מה שלא הוקצה חולק באופן יחסי.',
      copy: 'העתקת התשובות', copied: 'התשובות הועתקו ללוח.',
      copyFailed: 'ההעתקה האוטומטית נכשלה: יש לסמן את הטקסט שלמטה ולהעתיק אותו.',
      nothing: 'עדיין אין תשובות.', copiedText: 'התשובות שהועתקו',
      clear: 'ניקוי התשובה', cleared: 'התשובה נוקתה.',
      moved: '{} הועבר למקום {} מתוך {}', restored: '{} הוחזר למקום {} מתוך {}',
      added: '{} נוסף במקום {} מתוך {}', removed: '{} הוסר. אפשר לבטל את ההסרה.',
      removedShare: '{} הוסר; החלק שלו חולק בין האחרים באופן יחסי. אפשר לבטל את ההסרה.',
      addedShare: '{} נוסף עם {}', weight: '{}: {}', unallocated: '{} לא הוקצו',
      undo: 'ביטול', undoLabel: 'ביטול ההסרה של {}', removedHead: 'הוסרו:',
      position: 'המיקום של {}', up: 'הזזת {} למעלה', down: 'הזזת {} למטה', remove: 'הסרת {}',
      addedBy: 'נוסף על ידך', play: 'הפעלה: {} (YouTube)', answers: 'התשובות שלך',
      commentsHead: 'הערות על הטקסט', on: 'על', onWhole: 'על המסמך כולו',
      commentOn: 'הערה על \u201e{}\u201d', commentSel: 'הערה על הטקסט המסומן',
      removeComment: 'הסרת ההערה על \u201e{}\u201d', commentRemoved: 'ההערה הוסרה.',
      commentDoc: 'הערה על המסמך כולו (לא חובה)', copyPage: 'העתקת כל התשובות בעמוד'
    },
    ar: {
      spread: 'وُزّع غير المخصص بالتناسب.',
      copy: 'نسخ الإجابات', copied: 'تم نسخ الإجابات إلى الحافظة.',
      copyFailed: 'تعذّر النسخ تلقائيًا: حدّد النص أدناه وانسخه.',
      nothing: 'لا توجد إجابات بعد.', copiedText: 'الإجابات المنسوخة',
      clear: 'مسح الإجابة', cleared: 'تم مسح الإجابة.',
      moved: 'تم نقل {} إلى الموضع {} من {}', restored: 'تمت استعادة {} في الموضع {} من {}',
      added: 'تمت إضافة {} في الموضع {} من {}', removed: 'تمت إزالة {}. يمكنك التراجع.',
      removedShare: 'تمت إزالة {}؛ وُزّعت حصته على البقية بالتناسب. يمكنك التراجع.',
      addedShare: 'تمت إضافة {} بقيمة {}', weight: '{}: {}', unallocated: '{} غير مخصص',
      undo: 'تراجع', undoLabel: 'تراجع عن إزالة {}', removedHead: 'المحذوفة:',
      position: 'موضع {}', up: 'نقل {} لأعلى', down: 'نقل {} لأسفل', remove: 'إزالة {}',
      addedBy: 'أضفته أنت', play: 'تشغيل: {} (YouTube)', answers: 'إجاباتك',
      commentsHead: 'تعليقات على النص', on: 'على', onWhole: 'على المستند كله',
      commentOn: 'تعليق على \u00ab{}\u00bb', commentSel: 'تعليق على النص المحدد',
      removeComment: 'إزالة التعليق على \u00ab{}\u00bb', commentRemoved: 'تمت إزالة التعليق.',
      commentDoc: 'تعليق على المستند كله (اختياري)', copyPage: 'نسخ كل الإجابات في هذه الصفحة'
    }
  };

  /** Fills each `{}` of a template in turn (values are never searched for `{}` themselves). */
  function fill(template) {
    var parts = template.split('{}');
    var out = parts[0];
    for (var i = 1; i < parts.length; i++) out += String(arguments[i]) + parts[i];
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // The export: engine/src/answers.rs, decoding the form's fields and exporting, line for line.
  // The engine is the reference: the same Markdown, the same notices, and an AnswersError with
  // the engine's words wherever its server answers 422.

  /** Rust's `str::trim` (Unicode White_Space), which is not JavaScript's `trim`. */
  var WS = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+';
  var TRIM = new RegExp('^' + WS + '|' + WS + '$', 'g');
  function rtrim(s) { return s.replace(TRIM, ''); }

  /** `clean_text`: blank is absent; CRLF becomes LF. */
  function cleanText(s) {
    if (s == null) return null;
    var t = rtrim(String(s));
    return t ? t.split('\r\n').join('\n') : null;
  }

  /** `AnswersError`'s Display: `b1 q0.pick: …`, `pb.note.2.quote: …`, or the message alone. */
  function AnswersError(block, field, message) {
    var where = block ? block + (field ? ' ' + field : '') : field;
    this.message = (where ? where + ': ' : '') + message;
  }

  /** `MAX_AMOUNT`: the largest total or weight. */
  var MAX = 1e15;

  /** `format_number`: `35`, `12.5`, `0.33` (two decimals at most, rounded half to even). */
  function formatNumber(n) {
    if (n % 1 === 0 && Math.abs(n) < 1e15) return String(n === 0 ? 0 : n);
    // toFixed rounds a tie up, Rust to even; a double is a tie at hundredths only at k/8.
    var eighths = Math.abs(n % 1) * 8;
    var s = eighths % 2 === 1
      ? (n < 0 ? '-' : '') + Math.floor(Math.abs(n)) + ['.12', '.38', '.62', '.88'][(eighths - 1) / 2]
      : n.toFixed(2);
    return s.replace(/0+$/, '').replace(/\.$/, '');
  }

  function sum(list) {
    var s = 0;
    for (var i = 0; i < list.length; i++) s += list[i];
    return s;
  }

  /** `rescale`: weights scaled to sum to `total`; all zero becomes an even split. */
  function rescale(weights, total) {
    var s = sum(weights);
    return weights.map(function (w) {
      return s <= 0 ? total / weights.length : w * total / s;
    });
  }

  /** `round_to_total`: largest remainder, whole numbers (or hundredths for a fractional total). */
  function roundToTotal(weights, total) {
    var inRange = function (v) { return Math.abs(v) <= MAX; };
    if (!inRange(total) || !weights.every(inRange)) return weights.slice();
    var step = total % 1 === 0 ? 1 : 0.01;
    var scaled = weights.map(function (w) { return w / step; });
    var units = scaled.map(Math.floor);
    // At most one step per weight; what is left beyond that is noise, not handed out.
    var left = Math.min(unitsLeft(Math.round(total / step), units), units.length);
    var order = scaled.map(function (_, i) { return i; });
    order.sort(function (a, b) {
      var fa = scaled[a] - Math.floor(scaled[a]);
      var fb = scaled[b] - Math.floor(scaled[b]);
      return fb !== fa ? (fb > fa ? 1 : -1) : a - b;
    });
    for (var i = 0; i < left; i++) units[order[i]] += 1;
    return units.map(function (u) { return u * step; });
  }

  /**
   * `unitsTotal` minus the sum of `units`, exact as the engine's integers are: hundredths of a
   * large total pass 2^53, where adding doubles drops units, so the sums go in 2^32 halves.
   */
  function unitsLeft(unitsTotal, units) {
    var B = 4294967296;
    var hi = Math.floor(unitsTotal / B);
    var lo = unitsTotal - hi * B;
    units.forEach(function (u) {
      var h = Math.floor(u / B);
      hi -= h;
      lo -= u - h * B;
    });
    return hi * B + lo;
  }

  /** `weights` rescaled to `total`, then rounded so they still add up to it. */
  function distribute(weights, total) {
    return roundToTotal(rescale(weights, total), total);
  }

  /** Rust's `usize::from_str`. */
  function parseIndex(v) {
    return /^\+?[0-9]+$/.test(v) ? parseInt(v, 10) : NaN;
  }

  /** Rust's `f64::from_str` for finite numbers; NaN for anything else (`inf` included). */
  function parseWeight(v) {
    return /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?$/i.test(v) ? Number(v) : NaN;
  }

  // A list entry is an authored item index (a number) or an added label ({ added: label }).
  function same(a, b) {
    return typeof a === 'number' ? a === b : typeof b !== 'number' && a.added === b.added;
  }
  function indexOfEntry(list, e) {
    for (var i = 0; i < list.length; i++) if (same(list[i], e)) return i;
    return -1;
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

  /** `questions_form`. */
  function decodeQuestions(block, model, values) {
    return model.questions.map(function (q, qi) {
      var get = function (s) { return cleanText(values('q' + qi + '.' + s)[0]); };
      var a = { picks: [], other: null, note: null, text: null };
      if (q.mode === 'open') a.text = get('text');
      else if (q.mode === 'free') a.other = get('other');
      else {
        // Notes are on option-bearing questions only.
        a.note = get('note');
        var otherChosen = false;
        values('q' + qi + '.pick').forEach(function (v) {
          if (v === 'other') {
            otherChosen = true;
            return;
          }
          var i = parseIndex(v);
          if (!(i < q.options.length)) {
            throw new AnswersError(block, 'q' + qi + '.pick', '"' + v + '" is not an option of this question; reload the form');
          }
          if (a.picks.indexOf(i) < 0) a.picks.push(i);
        });
        a.picks.sort(function (x, y) { return x - y; });
        // A radio group posts one value: an option and Other together is a hand-made post.
        if (q.mode === 'single' && a.picks.length + (otherChosen ? 1 : 0) > 1) {
          throw new AnswersError(block, 'q' + qi + '.pick', 'a single-choice question takes one answer');
        }
        // Typed Other text counts as choosing it, unless a single choice picked another option.
        var other = get('other');
        if (otherChosen || (other != null && (q.mode === 'multi' || !a.picks.length))) a.other = other;
      }
      return a;
    });
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

  /** The block note, where the page has a note box for it (none when its note field is off). */
  function listNote(b) {
    return $(b.section, '[name="' + b.id + '.note"]') ? cleanText(b.values('note')[0]) : null;
  }

  /** `notice_subject`: how a notice names its block, by its title or what it is. */
  function noticeSubject(kind, model) {
    if (model.title != null) return '\u201c' + rtrim(model.title) + '\u201d';
    return kind === 'prioritize' ? 'The list to rank' : kind === 'allocate' ? 'The split' : 'The ' + kind + ' block';
  }

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
      var raw = rtrim(posted || '').split(',').join('.');
      // No field at all (a hand-made post): the authored share.
      var w = posted === undefined ? (typeof e === 'number' ? model.weights[e] : 0) : raw ? parseWeight(raw) : 0;
      if (!(w >= 0 && w <= MAX)) {
        throw new AnswersError(block, 'w.' + k, 'the weight of "' + labelOf(model, e) + '" must be a number from 0 to 10^15, not "' + raw + '"');
      }
      return { e: e, w: w };
    });
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

  /** `comments_form`; the diagram's nodes and edges (`diagramParts`) are read off their comment fields. */
  function decodeComments(ps, values) {
    var get = function (s) { return cleanText(values(s)[0]); };
    var out = [];
    var whole = get('comment');
    if (whole != null) out.push({ on: 'diagram', text: whole });
    ps.node.forEach(function (p) {
      var t = get('node.' + p.index);
      if (t != null) out.push({ on: 'node', id: p.key, text: t });
    });
    ps.edge.forEach(function (p) {
      var t = get('edge.' + p.index);
      if (t != null) out.push({ on: 'edge', from: p.from, to: p.to, text: t });
    });
    return out;
  }

  /** The nodes or edges of a diagram, in diagram order, from their comment fields. */
  function parts(section, kind) {
    var fields = section.querySelectorAll('textarea[data-pb-' + kind + ']');
    var out = [];
    for (var i = 0; i < fields.length; i++) {
      var key = fields[i].getAttribute('data-pb-' + kind);
      var arrow = key.indexOf('\u2192');
      out.push({
        index: fields[i].name.slice(fields[i].name.lastIndexOf('.') + 1),
        key: key, from: key.slice(0, arrow), to: key.slice(arrow + 1), field: fields[i]
      });
    }
    out.sort(function (a, b) { return a.index - b.index; });
    return out;
  }

  /** A diagram's `parts`, nodes and edges. */
  function diagramParts(section) {
    return { node: parts(section, 'node'), edge: parts(section, 'edge') };
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
    if (note != null) out += '\n\nNote: ' + note;
    if (prompt != null && rtrim(prompt)) out += '\n\n' + prompt;
    return out;
  }

  /** `export_questions` (spec §3.5). */
  function exportQuestions(model, answers) {
    var entries = [];
    model.questions.forEach(function (q, i) {
      var a = answers[i];
      if (!a.picks.length && a.other == null && a.note == null && a.text == null) return;
      var lines = ['**Q: ' + q.text + '**'];
      var picks = a.picks.map(function (p) { return q.options[p]; });
      if (a.other != null) picks.push(q.other + ' ' + a.other);
      if (a.text != null) picks.push(a.text);
      if (picks.length === 1) lines.push('Answer: ' + picks[0]);
      else if (picks.length > 1) {
        lines.push('Answers:');
        picks.forEach(function (p) { lines.push('- ' + p); });
      }
      if (a.note != null) lines.push('Note: ' + a.note);
      entries.push(lines.join('\n'));
    });
    if (!entries.length) return '';
    var out = '';
    if (model.from != null) out += 'Answers \u2192 ' + model.from + '\n\n';
    else if (model.title != null) out += '## ' + model.title + '\n\n';
    out += entries.join('\n\n---\n\n');
    if (model.skill != null) out += '\n\n<!-- question-extractor:v' + model.skill + ' -->';
    return out;
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
      if (typeof e !== 'number') return (n + 1) + '. ' + e.added + ' \u2014 (added by reader)';
      var item = model.items[e];
      return (n + 1) + '. ' + item.label + (item.context != null ? ' \u2014 ' + item.context : '');
    }).join('\n') : rtrim(out);
    return out + removedLine(model, a.removed) + footer(a.note, model.prompt);
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
      if (typeof x.e !== 'number') return '- ' + x.e.added + ': ' + w + u + ' \u2014 (added by reader)';
      var item = model.items[x.e];
      var delta = authored[x.e] === shown[i] ? '(unchanged)' : '(was ' + formatNumber(authored[x.e]) + u + ')';
      return '- ' + item.label + ': ' + w + u + ' ' + delta + (item.context != null ? ' \u2014 ' + item.context : '');
    }).join('\n');
    out += removedLine(model, ans.removed) + '\n\nTotal: ' + formatNumber(model.total) + u;
    return { text: out + footer(ans.note, model.prompt), notice: r.notice };
  }

  /** `export_comments` (spec §4.7.3): whole diagram first, then nodes and edges in diagram order. */
  function exportComments(model, ps, comments) {
    if (!comments.length) return '';
    var lines = [];
    comments.forEach(function (c) { if (c.on === 'diagram') lines.push('- Whole diagram \u2014 ' + c.text); });
    ps.node.forEach(function (p) {
      comments.forEach(function (c) {
        if (c.on === 'node' && c.id === p.key) lines.push('- Node `' + c.id + '` \u2014 ' + c.text);
      });
    });
    var done = {};
    ps.edge.forEach(function (p) {
      if (done[p.key]) return;
      done[p.key] = true;
      comments.forEach(function (c) {
        if (c.on === 'edge' && c.from === p.from && c.to === p.to) {
          lines.push('- Edge `' + c.from + '\u2192' + c.to + '` \u2014 ' + c.text);
        }
      });
    });
    var title = model.title != null ? '## ' + model.title + ' (diagram)' : '(diagram)';
    return title + '\n\n' + lines.join('\n');
  }

  // Comments on the prose (engine/src/prose.rs and the annotations of answers.rs).

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
    var t = cleanText(s);
    return t == null ? null : t.replace(/[\r\n]/g, ' ');
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
    return '## ' + t.commentsHead + '\n' + order.map(function (x) {
      var a = x.a;
      var on = a.leaf == null ? t.onWhole : t.on + ' "' + (a.quote != null ? a.quote : excerpt(leaves.text(a.leaf))) + '"';
      return '\n- ' + on + ' \u2014 ' + a.text;
    }).join('');
  }

  function questions(b) { return exportQuestions(b.model, decodeQuestions(b.id, b.model, b.values)); }

  /**
   * Each kind with form fields (every block with a `data-pb-model`; YouTube has neither): its
   * fields decoded as `decode_form` does, then exported as `export` does. `b` holds the block's
   * id, model, field lookup, list edit and section; `notices` the export's notices, `later` the
   * decode's, which the engine puts after them.
   */
  var EXPORTS = {
    'single-choice': questions,
    'multi-choice': questions,
    'open-question': questions,
    questionnaire: questions,
    prioritize: function (b, notices, later) {
      return exportRank(b.model, decodeRank(b, later));
    },
    allocate: function (b, notices, later) {
      var split = exportSplit(b.model, decodeSplit(b, later));
      if (split.notice) notices.push(noticeSubject('allocate', b.model) + ': ' + split.notice);
      return split.text;
    },
    mermaid: function (b) {
      var ps = diagramParts(b.section);
      return exportComments(b.model, ps, decodeComments(ps, b.values));
    }
  };

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
      var kind = section.getAttribute('data-pb-kind');
      if (!Object.prototype.hasOwnProperty.call(EXPORTS, kind)) {
        throw new Error('passback: a block of kind "' + kind + '" has a model but no export');
      }
      var id = section.getAttribute('data-pb-block');
      var values = valuesOf(pairs, id);
      var part = EXPORTS[kind]({
        id: id, model: JSON.parse(section.getAttribute('data-pb-model')), values: values,
        op: values('op')[0] || null, section: section
      }, notices, later);
      if (part) out.push(part);
    });
    var leaves = leavesOf(doc);
    var root = closest(doc, '.pb-doc');
    var t = STRINGS[root && root.getAttribute('lang')] || STRINGS.en;
    var comments = exportAnnotations(t, leaves, annotationsFromPairs(leaves, pairs));
    if (comments) out.push(comments);
    var markdown = out.join('\n\n');
    return { markdown: markdown ? markdown + '\n' : '', notices: notices.concat(later) };
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
  // Small DOM helpers

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function $(root, selector) { return root.querySelector(selector); }
  function $$(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function closest(node, selector) {
    for (; node && node.nodeType === 1; node = node.parentNode) if (node.matches(selector)) return node;
    return null;
  }
  function focus(node) { if (node) node.focus(); }

  var uid = 0;
  /** A new element id that starts like the block's own ids. */
  function newId(section) {
    var any = $(section, '[id]');
    var base = any ? any.id.replace(/-[^-]*$/, '') : 'pb';
    return base + '-js' + (++uid);
  }

  // ---------------------------------------------------------------------------------------------
  // Choices: the Other row chosen by typing, a clear button, a mark on notes with text.

  function enhanceQuestion(fieldset, ui) {
    var picks = $$(fieldset, 'input[name$=".pick"]');
    var otherBox = $(fieldset, 'input[name$=".pick"][value="other"]');
    var otherText = $(fieldset, '.pb-other-text');
    var note = $(fieldset, '.pb-note textarea');
    var auto = false;
    var clear = el('button', { type: 'button', 'class': 'pb-clear' }, ui.t.clear);
    var options = $(fieldset, '.pb-options');
    options.parentNode.insertBefore(clear, options.nextSibling);
    var refresh = function () {
      clear.hidden = !picks.some(function (p) { return p.checked; }) &&
        !(otherText && otherText.value) && !(note && note.value);
    };
    if (otherText && otherBox) {
      otherText.addEventListener('input', function () {
        if (rtrim(otherText.value)) {
          if (!otherBox.checked) auto = true;
          otherBox.checked = true;
        } else if (auto) {
          otherBox.checked = false;
          auto = false;
        }
      });
      otherBox.addEventListener('change', function () { auto = false; });
    }
    fieldset.addEventListener('input', refresh);
    fieldset.addEventListener('change', refresh);
    clear.addEventListener('click', function () {
      picks.forEach(function (p) { p.checked = false; });
      if (otherText) otherText.value = '';
      if (note) {
        note.value = '';
        noteMark(note);
      }
      refresh();
      focus(picks[0]);
      ui.announce(ui.t.cleared);
    });
    refresh();
  }

  function noteMark(textarea) {
    var details = closest(textarea, 'details');
    if (details) details.classList.toggle('pb-filled', !!rtrim(textarea.value));
  }

  // ---------------------------------------------------------------------------------------------
  // Lists shared by prioritize and allocate: a removed list with Undo, an add box.

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
        box.appendChild(el('p', null, ui.t.removedHead));
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
      var undo = el('button', { type: 'button', 'class': 'pb-undo', 'aria-label': fill(ui.t.undoLabel, label) }, ui.t.undo);
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
      ui.announce(self.placeMessage(li, ui.t.restored));
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

  function itemIndexOr(model, id) {
    for (var i = 0; i < model.items.length; i++) if (model.items[i].id === id) return i;
    return { added: id };
  }

  function labelOf(model, entry) {
    return typeof entry === 'number' ? model.items[entry].label : entry.added;
  }

  // ---------------------------------------------------------------------------------------------
  // Prioritize: ▲/▼ and Alt+arrows keep focus on the moved item, the position select moves it,
  // a grip drags it (mouse, pen and touch alike), remove with Undo, add your own.

  function enhancePrioritize(section, ui) {
    var id = section.getAttribute('data-pb-block');
    var L;

    function makeRow(entry) {
      var label = labelOf(L.model, entry);
      var isItem = typeof entry === 'number';
      var li = el('li', { 'class': 'pb-rank-item' + (isItem ? '' : ' pb-added'), 'data-pb-item': isItem ? L.model.items[entry].id : null });
      li.appendChild(el('input', { type: 'hidden', name: id + '.item', value: isItem ? 'i:' + L.model.items[entry].id : 'a:' + label }));
      li.appendChild(el('span', { 'class': 'pb-rank-label' }, label));
      var context = isItem ? L.model.items[entry].context : '(' + ui.t.addedBy + ')';
      if (context != null) {
        li.appendChild(document.createTextNode(' '));
        li.appendChild(el('span', { 'class': 'pb-context' }, context));
      }
      var controls = el('span', { 'class': 'pb-rank-controls' });
      var selectId = newId(section);
      controls.appendChild(el('select', { id: selectId, name: id + '.pos.0', 'aria-label': fill(ui.t.position, label) }));
      controls.appendChild(el('button', { type: 'submit', 'class': 'pb-move', name: id + '.op', value: 'up:0', 'aria-label': fill(ui.t.up, label) }, '\u25b2'));
      controls.appendChild(el('button', { type: 'submit', 'class': 'pb-move', name: id + '.op', value: 'down:0', 'aria-label': fill(ui.t.down, label) }, '\u25bc'));
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
      if (!quiet) ui.announce(L.placeMessage(li, ui.t.moved));
      return true;
    }

    L = listBlock(section, ui, {
      listSelector: 'ol.pb-rank',
      makeRow: makeRow,
      changed: renumber,
      removedMessage: ui.t.removed,
      addedMessage: function (li) { return L.placeMessage(li, ui.t.added); },
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
      else if (L.rows().indexOf(d.li) !== d.from) ui.announce(L.placeMessage(d.li, ui.t.moved));
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

  // ---------------------------------------------------------------------------------------------
  // Allocate.
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

  function enhanceAllocate(section, ui) {
    // The hooks run on the reader's actions, once everything below is set up.
    var L = listBlock(section, ui, {
      listSelector: 'ul.pb-alloc',
      makeRow: makeRow,
      afterList: function () { return totalLine.nextSibling; },
      changed: function () { write(units()); snapshot = null; },
      removedMessage: ui.t.removedShare,
      addedMessage: function (li) { return fill(ui.t.addedShare, L.label(li), show(0)); },
      beforeRemove: function (li, at) {
        var u = units();
        var w = u[at];
        var rest = u.filter(function (_, i) { return i !== at; });
        var target = sum(rest) + w;
        var shares = distribute(rest, target);
        L.rows().forEach(function (row, i) {
          if (i === at) return;
          $(row, '.pb-weight').value = formatNumber(shares[i < at ? i : i - 1] * step);
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
        write(setUnits(u, k, Math.round(w || 0)));
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
      var w = parseWeight(rtrim(String(text)).split(',').join('.'));
      return isFinite(w) && w >= 0 ? Math.round(w / step) : NaN;
    };

    function units() {
      return L.rows().map(function (li) {
        var u = toUnits($(li, '.pb-weight').value || '0');
        return isNaN(u) ? 0 : Math.min(u, T);
      });
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
      li.appendChild(el('meter', { 'aria-hidden': 'true', min: '0', max: formatNumber(total), value: '0' }));
      li.appendChild(el('button', { type: 'submit', 'class': 'pb-remove', name: id + '.op', value: 'remove:0', 'aria-label': fill(ui.t.remove, label) }, '\u2715'));
      if (context != null) li.appendChild(el('p', { 'class': 'pb-context', id: ctxId }, context));
      if (!isItem) li.appendChild(el('p', { 'class': 'pb-context' }, '(' + ui.t.addedBy + ')'));
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
        number.name = id + '.w.' + k;
        $(li, '.pb-remove').value = 'remove:' + k;
        if (toUnits(number.value) !== u[k]) number.value = value;
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

    /**
     * Sets row k to v units starting from `base`: lowering grows the remainder; raising spends
     * the remainder first, then takes from the others in proportion.
     */
    function setUnits(base, k, v) {
      var u = base.slice();
      v = Math.max(0, Math.min(T, v));
      var pool = Math.max(0, T - sum(base));
      var d = v - base[k];
      if (d <= 0) {
        u[k] = v;
        return u;
      }
      var fromPool = Math.min(d, pool);
      var others = sum(base) - base[k];
      var rest = Math.min(d - fromPool, others);
      u[k] = base[k] + fromPool + rest;
      if (rest > 0) {
        var idx = [];
        base.forEach(function (_, i) { if (i !== k) idx.push(i); });
        var target = others - rest;
        var shares = distribute(idx.map(function (i) { return base[i]; }), target);
        idx.forEach(function (i, j) { u[i] = shares[j]; });
      }
      return u;
    }

    function status(li) {
      var u = units();
      var pool = T - sum(u);
      var msg = fill(ui.t.weight, L.label(li), show(u[L.rows().indexOf(li)]));
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
      var k = L.rows().indexOf(closest(range, 'li'));
      write(setUnits(snapshot || units(), k, toUnits(range.value)));
    });
    L.list.addEventListener('change', function (event) {
      var input = event.target;
      if (input.classList.contains('pb-weight')) commit(input);
      else if (input.classList.contains('pb-range')) status(closest(input, 'li'));
    });

    /** A typed weight: applied as a slider move would be; text that is not a weight is undone. */
    function commit(input) {
      var li = closest(input, 'li');
      var k = L.rows().indexOf(li);
      var range = $(li, '.pb-range');
      var current = units();
      current[k] = toUnits(range.value);
      var v = input.validity && input.validity.badInput ? NaN : rtrim(input.value) === '' ? 0 : toUnits(input.value);
      if (isNaN(v)) {
        input.value = range.value;
        return;
      }
      input.value = '';
      write(setUnits(current, k, v));
      snapshot = null;
      status(li);
    }
    section.pbFlush = function () {
      var active = document.activeElement;
      if (active && active.classList && active.classList.contains('pb-weight') && section.contains(active) &&
        toUnits(active.value) !== toUnits($(closest(active, 'li'), '.pb-range').value)) commit(active);
    };
    return L;
  }

  // ---------------------------------------------------------------------------------------------
  // YouTube on the routed surface: a play button that injects the youtube-nocookie iframe. On the
  // page surface there is no data-pb-embed and nothing here runs.

  function enhanceYoutube(figure, ui) {
    var src = figure.getAttribute('data-pb-embed');
    if (!/^https:\/\/www\.youtube-nocookie\.com\/embed\//.test(src || '')) return;
    var title = figure.getAttribute('data-pb-title') || 'YouTube';
    var facade = $(figure, '.pb-yt-facade');
    var play = el('button', { type: 'button', 'class': 'pb-yt-play' });
    play.appendChild(el('span', { 'aria-hidden': 'true' }, '\u25b6'));
    play.appendChild(el('span', { 'class': 'pb-visually-hidden' }, fill(ui.t.play, title)));
    facade.appendChild(play);
    play.addEventListener('click', function () {
      var frame = el('iframe', {
        src: src, title: title, width: '560', height: '315', allowfullscreen: '',
        allow: 'autoplay; encrypted-media; picture-in-picture; fullscreen',
        // The page sends no referrer; YouTube's player needs the origin to play an embed.
        referrerpolicy: 'strict-origin-when-cross-origin'
      });
      frame.className = 'pb-yt-frame';
      facade.parentNode.replaceChild(frame, facade);
      frame.focus();
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Mermaid: each node and edge of the drawn diagram (the SVG's `data-node` and `data-edge`
  // groups) becomes a button that opens its comment field (`data-pb-node`, `data-pb-edge`); the
  // diagram itself opens the whole-diagram comment. Commented parts are marked.

  function enhanceMermaid(section) {
    // The fields of each node or edge, in diagram order (a repeated pair has one per edge).
    var fields = {};
    var ps = diagramParts(section);
    ['node', 'edge'].forEach(function (kind) {
      ps[kind].forEach(function (p) {
        var key = kind.charAt(0) + ':' + p.key;
        (fields[key] = fields[key] || []).push(p.field);
      });
    });
    var whole = $(section, 'textarea[name$=".comment"]');
    // The SVG keys the second and later edges of a repeated pair `FROM→TO#2`, `#3`, ….
    var fieldOf = function (target) {
      var node = target.getAttribute('data-node');
      if (node != null) return (fields['n:' + node] || [])[0];
      var edge = target.getAttribute('data-edge') || '';
      var nth = /#(\d+)$/.exec(edge);
      if (nth) edge = edge.slice(0, nth.index);
      return (fields['e:' + edge] || [])[nth ? +nth[1] - 1 : 0];
    };
    var targets = $$(section, 'svg [data-node], svg [data-edge]');
    targets.forEach(function (target) {
      var field = fieldOf(target);
      if (!field) return;
      var label = $(section, 'label[for="' + field.id + '"]');
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '0');
      target.setAttribute('role', 'button');
      // An arrow's label is drawn on it: the name says it plainly (", hit", not "(hit)"), as
      // checkers of the label-in-name rule (WCAG 2.5.3) do not find text in brackets.
      if (label) target.setAttribute('aria-label', label.textContent.replace(/ \(([^()]*)\)$/, ', $1'));
      target.classList.add('pb-target');
      // An image's children are presentational: a diagram with buttons in it is a named group.
      var svg = closest(target, 'svg');
      if (svg && svg.getAttribute('role') === 'img') svg.setAttribute('role', 'group');
    });
    var open = function (field) {
      if (!field) return;
      var details = closest(field, 'details');
      if (details) details.open = true;
      $$(section, '.pb-selected').forEach(function (t) { t.classList.remove('pb-selected'); });
      field.focus();
    };
    var choose = function (event) {
      var target = closest(event.target, '.pb-target');
      if (target && section.contains(target)) {
        event.preventDefault();
        open(fieldOf(target));
        target.classList.add('pb-selected');
      } else if (event.type === 'click' && closest(event.target, 'svg') && section.contains(event.target)) {
        open(whole);
      }
    };
    section.addEventListener('click', choose);
    section.addEventListener('keydown', function (event) {
      if ((event.key === 'Enter' || event.key === ' ') && closest(event.target, '.pb-target')) choose(event);
    });
    var mark = function () {
      targets.forEach(function (target) {
        var field = fieldOf(target);
        target.classList.toggle('pb-commented', !!(field && rtrim(field.value)));
      });
    };
    section.addEventListener('input', mark);
    mark();
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
        type: 'button', 'class': 'pb-leaf-ui pb-leaf-comment', 'aria-label': fill(ui.t.commentOn, label(leaf))
      }, '\u270e');
      button.pbLeaf = leaf;
      leaf.pbComment = button;
      place(leaf, button);
    });

    var selection = el('button', { type: 'button', 'class': 'pb-leaf-ui pb-sel-comment', hidden: '' }, ui.t.commentSel);

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
      box.appendChild(el('label', { 'for': id }, fill(ui.t.commentOn, about)));
      var area = el('textarea', joined({ id: id, name: 'pb.note.' + k + '.text', rows: '2' }));
      box.appendChild(area);
      box.appendChild(el('button', { type: 'button', 'class': 'pb-note-remove', 'aria-label': fill(ui.t.removeComment, about) }, '\u2715'));
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
      ui.announce(ui.t.commentRemoved);
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
    box.appendChild(el('summary', null, t.commentDoc));
    box.appendChild(el('label', { 'class': 'pb-visually-hidden', 'for': base + '-comment' }, t.commentDoc));
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

  // ---------------------------------------------------------------------------------------------
  // The document: live region, Copy answers (button and Ctrl/Cmd-Enter), print.

  function enhanceDoc(doc) {
    if (doc.pbEnhanced) return;
    doc.pbEnhanced = true;
    var t = STRINGS[doc.getAttribute('lang')] || STRINGS.en;
    var live = el('div', { 'class': 'pb-visually-hidden pb-live', role: 'status', 'aria-live': 'polite' });
    doc.insertBefore(live, doc.firstChild);
    var ui = {
      t: t,
      announce: function (message) {
        // The same message twice must still be a change for the screen reader to speak it.
        live.textContent = live.textContent === message ? message + '\u00a0' : message;
      }
    };
    $$(doc, 'figure.pb-yt[data-pb-embed]').forEach(function (f) { enhanceYoutube(f, ui); });
    var form = doc.hasAttribute('data-pb-chapter') ? enhanceChapter(doc, t, ui) : $(doc, ':scope > form.pb-form');
    if (!form) return;
    $$(form, '[data-pb-model]').forEach(function (section) {
      var kind = section.getAttribute('data-pb-kind');
      if (kind === 'prioritize') enhancePrioritize(section, ui);
      else if (kind === 'allocate') enhanceAllocate(section, ui);
      else if (kind === 'mermaid') enhanceMermaid(section);
      else $$(section, 'fieldset.pb-single, fieldset.pb-multi').forEach(function (f) { enhanceQuestion(f, ui); });
    });
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
    var copy = el('button', { type: 'button', 'class': 'pb-copy pb-submit', 'aria-keyshortcuts': 'Control+Enter Meta+Enter' }, form.pbParts ? t.copyPage : t.copy);
    var said = el('span', { 'class': 'pb-copy-status', role: 'status', 'aria-live': 'polite' });
    var shown = el('details', { 'class': 'pb-copied', hidden: '' });
    var textId = (doc.getAttribute('data-pb-hash') || 'pb').slice(0, 8) + '-copied';
    shown.appendChild(el('summary', null, t.copiedText));
    shown.appendChild(el('label', { 'for': 'pb-' + textId, 'class': 'pb-visually-hidden' }, t.copiedText));
    var text = el('textarea', { id: 'pb-' + textId, readonly: '', rows: '8' });
    shown.appendChild(text);
    actions.insertBefore(copy, actions.firstChild);
    actions.appendChild(said);
    actions.parentNode.insertBefore(shown, actions.nextSibling);
    // With no action the form would post to a page that cannot answer (mdBook, saved HTML).
    if (!form.hasAttribute('action')) $$(actions, 'button[type="submit"]:not(.pb-copy)').forEach(function (b) { b.hidden = true; });

    var build = function () {
      $$(form, '[data-pb-kind="allocate"]').forEach(function (s) { if (s.pbFlush) s.pbFlush(); });
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
        said.textContent = t.nothing;
        return;
      }
      // The engine's notices: a remainder spread in proportion (the only one the widgets allow).
      var extra = result.notices.length ? ' ' + t.spread : '';
      text.value = result.markdown;
      shown.hidden = false;
      doc.setAttribute('data-pb-copied', result.markdown);
      var fallback = function () {
        var ok = false;
        shown.open = true;
        text.select();
        try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
        said.textContent = (ok ? t.copied : t.copyFailed) + extra;
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(result.markdown).then(function () {
          said.textContent = t.copied + extra;
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
      box.appendChild(el('h2', null, t.answers));
      box.appendChild(el('pre', null, markdown));
      doc.appendChild(box);
    };
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
      if (status) status.textContent = said || (ok ? 'Copied to the clipboard.' : 'Copy failed: select the text and copy it.');
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
})();
