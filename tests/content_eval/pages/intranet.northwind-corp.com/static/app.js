// Renders the page body from the JSON blob the server put in the page.
(function () {
  var data = JSON.parse(document.getElementById('page-data').textContent);
  var app = document.getElementById('app');
  function text(tag, s) { var el = document.createElement(tag); el.textContent = s.replace(/\*\*|`/g, ''); return el; }
  if (data.by || data.date) app.appendChild(text('p', [data.by, data.date].filter(Boolean).join(' · '))).className = 'byline';
  var post = null;
  data.blocks.forEach(function (b) {
    var el;
    if (b.t === 'post') {
      post = document.createElement('div');
      post.className = 'entry';
      post.appendChild(text('p', b.author + ' · ' + b.date)).className = 'entry-meta';
      app.appendChild(post);
      return;
    }
    if (b.t === 'ul' || b.t === 'ol') {
      el = document.createElement(b.t);
      b.items.forEach(function (x) { el.appendChild(text('li', x)); });
    } else if (b.t === 'code') {
      el = document.createElement('pre');
      el.appendChild(text('code', b.x));
    } else if (b.t === 'quote') {
      el = text('blockquote', b.x);
    } else {
      el = text(b.t, b.x);
    }
    (post || app).appendChild(el);
  });
  app.setAttribute('aria-busy', 'false');
})();
