import { api, enc } from './api.js';
import { feed } from './feed.js';
import { count, errorText, field, h, show, statusBadge, table } from './dom.js';

const STATUSES = ['active', 'deprecated', 'retired', 'quarantined'];

/** A version's one status as people speak of it: quarantine overrides the lifecycle. */
export function statusOf(version) {
  return version.quarantined ? 'quarantined' : version.status;
}

function sunsetOf(version) {
  const sunset = version.deprecation?.sunsetAt;
  return sunset ? ` sunset ${sunset.slice(0, 10)}` : '';
}

function rowsFor(catalog, filter) {
  const query = filter.query.toLowerCase();
  return catalog.tools.flatMap((tool) => tool.versions.map((version) => ({ tool, version })))
    .filter(({ tool, version }) => {
      const spec = version.spec;
      const text = `${tool.name} ${spec.title ?? ''} ${spec.description} ${spec.owner} ${spec.requiredScopes.join(' ')} ${spec.tenants.join(' ')}`.toLowerCase();
      return (!query || text.includes(query))
        && (!filter.status || statusOf(version) === filter.status)
        && (!filter.sideEffect || spec.sideEffect === filter.sideEffect)
        && (!filter.classification || spec.dataClassification === filter.classification);
    });
}

function versionRow({ tool, version }) {
  const spec = version.spec;
  const href = `#/tool/${enc(tool.name)}/${enc(version.version)}`;
  return h('tr', { 'data-tool': tool.name, 'data-version': version.version },
    h('td', {}, h('a', { href }, tool.name)),
    h('td', {}, version.version),
    h('td', {}, statusBadge(statusOf(version)), sunsetOf(version)),
    h('td', {}, spec.sideEffect),
    h('td', {}, spec.requiredScopes.join(', ') || '—'),
    h('td', {}, spec.tenants.join(', ') || 'all'),
    h('td', {}, spec.dataClassification),
    h('td', {}, spec.owner),
    h('td', {}, tool.upstream?.server ?? spec.upstream.server));
}

function select(options, all) {
  return h('select', {}, h('option', { value: '' }, all), options.map((o) => h('option', { value: o }, o)));
}

export function renderCatalog(page) {
  const filter = { query: '', status: '', sideEffect: '', classification: '' };
  const results = h('div', { id: 'catalog-results' });
  let catalog = null;
  const search = h('input', { type: 'search', placeholder: 'name, description, owner, scope' });
  const status = select(STATUSES, 'any status');
  const sideEffect = select(['read', 'idempotent_write', 'write', 'destructive'], 'any side effect');
  const classification = select(['public', 'internal', 'confidential', 'restricted'], 'any classification');
  const draw = () => {
    if (!catalog) return;
    Object.assign(filter, { query: search.value.trim(), status: status.value, sideEffect: sideEffect.value, classification: classification.value });
    const rows = rowsFor(catalog, filter);
    show(results,
      table(count(rows.length, 'tool version'), ['Tool', 'Version', 'Status', 'Side effect', 'Scopes', 'Tenants', 'Classification', 'Owner', 'Server'], rows.map(versionRow)),
      h('h3', {}, 'Servers'),
      table(count(catalog.servers.length, 'server'), ['Server', 'Transport', 'Owner'], catalog.servers.map((s) =>
        h('tr', {}, h('td', {}, s.name), h('td', {}, s.transport ?? (s.command ? 'stdio' : 'streamable-http')), h('td', {}, s.owner ?? '—')))));
  };
  const load = async () => {
    try {
      catalog = await api('discovery', '/v1/catalog');
      draw();
    } catch (error) {
      show(results, errorText(error));
    }
  };
  for (const control of [search, status, sideEffect, classification]) control.addEventListener('input', draw);
  show(page, h('h2', {}, 'Catalog'),
    h('form', { class: 'filters', role: 'search', onsubmit: (e) => e.preventDefault() },
      field('catalog-search', 'Search', search), field('catalog-status', 'Status', status),
      field('catalog-side-effect', 'Side effect', sideEffect), field('catalog-classification', 'Classification', classification)),
    results);
  void load();
  // A change on the feed reaches discovery's projection a moment later: reload twice.
  const timers = [];
  const off = feed.on((kind) => {
    if (kind !== 'entry') return;
    timers.push(setTimeout(load, 300), setTimeout(load, 1500));
  });
  return () => {
    off();
    timers.forEach(clearTimeout);
  };
}
