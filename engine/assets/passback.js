// passback enhancement script. Loaded with `script-src 'self'`: no inline code, no eval.
// For now it only powers the "Copy answers" button of the answers page; the widgets work
// without it.
(function () {
  'use strict';

  function copyFrom(button) {
    var target = document.getElementById(button.getAttribute('data-pb-copy'));
    if (!target) return;
    var text = target.value !== undefined ? target.value : target.textContent;
    var status = document.getElementById(button.getAttribute('data-pb-status'));
    var done = function (ok) {
      if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Copy failed: select the text and copy it.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
    } else {
      target.select();
      done(document.execCommand && document.execCommand('copy'));
    }
  }

  function init() {
    var buttons = document.querySelectorAll('button[data-pb-copy]');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].hidden = false;
      buttons[i].addEventListener('click', function (event) { copyFrom(event.currentTarget); });
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
