// ---------------------------------------------------------------------------------------------
// YouTube (engine/src/components/youtube.rs) on the routed surface: a play button that injects
// the youtube-nocookie iframe. On the page surface there is no data-pb-embed and nothing here
// runs.

register('youtube', {
  enhance: function (block, ui) {
    $$(block, 'figure.pb-yt[data-pb-embed]').forEach(function (f) { enhanceYoutube(f, ui); });
  }
});

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
