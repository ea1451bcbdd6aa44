import { feed } from './feed.js';
import { h, show } from './dom.js';

function item(e) {
  return h('li', { 'data-seq': e.seq },
    h('strong', {}, e.type), ' ', e.tool ? `${e.tool}${e.version ? `@${e.version}` : ''}` : e.stream,
    ' by ', e.principal, ' ', h('span', { class: 'muted' }, e.occurredAt));
}

export function renderFeed(page) {
  const state = h('p', { id: 'feed-page-state', role: 'status' });
  const list = h('ol', { id: 'feed-list', reversed: true });
  const drawState = () => {
    state.dataset.state = feed.state;
    state.textContent = `Connection: ${feed.state}${feed.detail ? ` (${feed.detail})` : ''}`;
  };
  drawState();
  list.append(...feed.entries.map(item));
  show(page, h('h2', {}, 'Live feed'), h('p', {}, 'Tool changes as audit records them, newest first.'), state,
    feed.entries.length ? null : h('p', { class: 'muted', id: 'feed-empty' }, 'Nothing yet since sign-in.'), list);
  return feed.on((kind, entry) => {
    if (kind === 'state') drawState();
    if (kind === 'entry') {
      document.getElementById('feed-empty')?.remove();
      list.prepend(item(entry));
    }
  });
}
