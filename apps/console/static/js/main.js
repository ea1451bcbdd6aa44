import { session } from './api.js';
import { feed } from './feed.js';
import { renderCatalog } from './catalog.page.js';
import { renderTool } from './tool.page.js';
import { renderPrincipal } from './principal.page.js';
import { renderAudit } from './audit.page.js';
import { renderFeed } from './feed.page.js';

const $ = (id) => document.getElementById(id);

// Routes live in the hash, so a reload keeps the page and no route ever reaches a server log.
const ROUTES = [
  [/^#\/catalog$/, () => renderCatalog],
  [/^#\/tool\/([^/]+)(?:\/([^/]+))?$/, (m) => (page) => renderTool(page, decodeURIComponent(m[1]), m[2] && decodeURIComponent(m[2]))],
  [/^#\/principal$/, () => renderPrincipal],
  [/^#\/audit$/, () => renderAudit],
  [/^#\/feed$/, () => renderFeed],
];

let leave = null;

function route() {
  if (!session.token()) return showSignIn();
  const hash = location.hash || '#/catalog';
  const found = ROUTES.map(([pattern, make]) => [pattern.exec(hash), make]).find(([m]) => m);
  const render = found ? found[1](found[0]) : renderCatalog;
  for (const link of $('nav').querySelectorAll('a')) {
    if (hash.startsWith(link.getAttribute('href'))) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  leave?.();
  leave = render($('page')) ?? null;
  $('main').focus({ preventScroll: true });
}

function showSignIn() {
  leave?.();
  leave = null;
  feed.stop();
  $('page').replaceChildren();
  for (const id of ['nav', 'who', 'sign-out', 'feed-state']) $(id).hidden = true;
  $('sign-in').hidden = false;
  $('token').focus();
}

function signedIn() {
  $('sign-in').hidden = true;
  for (const id of ['nav', 'who', 'sign-out', 'feed-state']) $(id).hidden = false;
  const { sub, scopes } = session.claims();
  $('who').textContent = `Signed in as ${sub} (${scopes.join(' ') || 'no scopes'})`;
  feed.start();
  route();
}

function showFeedState() {
  const state = $('feed-state');
  state.dataset.state = feed.state;
  state.textContent = `Live feed: ${feed.state}${feed.detail ? ` (${feed.detail})` : ''}`;
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token.replace(/^Bearer\s+/i, ''))) {
      $('sign-in-error').textContent = 'That does not look like a JWT (three dot-separated parts).';
      return;
    }
    $('token').value = '';
    $('sign-in-error').textContent = '';
    session.signIn(token);
    signedIn();
  });
  $('sign-out').addEventListener('click', () => {
    session.signOut();
    showSignIn();
  });
  feed.on((kind) => kind === 'state' && showFeedState());
  window.addEventListener('hashchange', route);
  if (session.token()) signedIn();
  else showSignIn();
});
