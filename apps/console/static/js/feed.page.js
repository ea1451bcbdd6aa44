import { feed } from './feed.js';
import { h, show } from './dom.js';

// Each entry is a structured CloudEvent: the tool is its subject, the version sits in its data.
function item(e) {
  const version = e.data?.version ?? e.data?.spec?.version;
  return h('li', { 'data-id': e.id },
    h('strong', {}, e.type), ' ', e.subject ? `${e.subject}${version ? `@${version}` : ''}` : e.estatestream,
    // A reader without governance scopes gets no actor (the registry does not show it either).
    e.estateactor ? ` by ${e.estateactor} ` : ' ', h('span', { class: 'muted' }, e.time));
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
