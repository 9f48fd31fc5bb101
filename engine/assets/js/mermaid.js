// ---------------------------------------------------------------------------------------------
// Mermaid (engine/src/components/mermaid.rs): comments on a diagram, its nodes and its edges.
// Its form decoded and exported; on the page each node and edge of the drawn diagram (the SVG's
// `data-node` and `data-edge` groups) becomes a button that opens its comment field
// (`data-pb-node`, `data-pb-edge`), the diagram itself opens the whole-diagram comment, and
// commented parts are marked.

register('mermaid', {
  decode: function (b) {
    var ps = diagramParts(b.section);
    return { parts: ps, comments: decodeComments(ps, b.values) };
  },
  export: function (b, answer) { return exportComments(b.model, answer.parts, answer.comments); },
  enhance: enhanceMermaid
});

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

/** `export_comments` (spec §4.7.3): whole diagram first, then nodes and edges in diagram order. */
function exportComments(model, ps, comments) {
  if (!comments.length) return '';
  var lines = [];
  comments.forEach(function (c) { if (c.on === 'diagram') lines.push('- Whole diagram \u2014 ' + reviewerText(c.text)); });
  ps.node.forEach(function (p) {
    comments.forEach(function (c) {
      if (c.on === 'node' && c.id === p.key) lines.push('- Node `' + c.id + '` \u2014 ' + reviewerText(c.text));
    });
  });
  var done = {};
  ps.edge.forEach(function (p) {
    if (done[p.key]) return;
    done[p.key] = true;
    comments.forEach(function (c) {
      if (c.on === 'edge' && c.from === p.from && c.to === p.to) {
        lines.push('- Edge `' + c.from + '\u2192' + c.to + '` \u2014 ' + reviewerText(c.text));
      }
    });
  });
  var title = model.title != null ? '## ' + model.title + ' (diagram)' : '(diagram)';
  return title + '\n\n' + lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The diagram on the page.

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
    $$(section, '.pb-selected').forEach(function (s) { s.classList.remove('pb-selected'); });
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
