// ---------------------------------------------------------------------------------------------
// Questions (engine/src/components/question.rs): the parts single-choice, multi-choice,
// open-question and questionnaire share, each registering them from its own file.

/** The parts of a set of questions, for `register`. */
var QUESTIONS = {
  decode: function (b) { return decodeQuestions(b.id, b.model, b.values); },
  export: function (b, answers) { return exportQuestions(b.model, answers); },
  enhance: function (section, ui) {
    $$(section, 'fieldset.pb-single, fieldset.pb-multi').forEach(function (f) { enhanceQuestion(f, ui); });
  }
};

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

/** `export_questions` (spec §3.5). */
function exportQuestions(model, answers) {
  var entries = [];
  model.questions.forEach(function (q, i) {
    var a = answers[i];
    if (!a.picks.length && a.other == null && a.note == null && a.text == null) return;
    var lines = ['**Q: ' + q.text + '**'];
    var picks = a.picks.map(function (p) { return q.options[p]; });
    if (a.other != null) picks.push(q.other + ' ' + reviewerText(a.other));
    if (a.text != null) picks.push(reviewerText(a.text));
    if (picks.length === 1) lines.push('Answer: ' + picks[0]);
    else if (picks.length > 1) {
      lines.push('Answers:');
      picks.forEach(function (p) { lines.push('- ' + p); });
    }
    if (a.note != null) lines.push('Note: ' + reviewerText(a.note));
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

// ---------------------------------------------------------------------------------------------
// Choices: the Other row chosen by typing, a clear button, a mark on notes with text.

function enhanceQuestion(fieldset, ui) {
  var picks = $$(fieldset, 'input[name$=".pick"]');
  var otherBox = $(fieldset, 'input[name$=".pick"][value="other"]');
  var otherText = $(fieldset, '.pb-other-text');
  var note = $(fieldset, '.pb-note textarea');
  var auto = false;
  var clear = el('button', { type: 'button', 'class': 'pb-clear' }, ui.t.clear_answer);
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
    ui.announce(ui.t.answer_cleared);
  });
  refresh();
}
