import { api, enc } from './api.js';
import { count, errorText, field, h, show, statusBadge, table } from './dom.js';

// The answer is discovery's own resolution (POST /v1/discover on behalf of a principal, admin
// only): the console never decides visibility itself.
export function renderPrincipal(page) {
  const results = h('div', { id: 'principal-results', 'aria-live': 'polite' });
  const form = h('form', { id: 'principal-form', class: 'filters' },
    field('principal-id', 'Principal id', h('input', { type: 'text', required: true, value: 'agent-preview' })),
    field('principal-tenant', 'Tenant (optional)', h('input', { type: 'text' })),
    field('principal-scopes', 'Scopes (space-separated)', h('input', { type: 'text', size: 30 })),
    field('principal-clearance', 'Clearance', h('select', {}, ['public', 'internal', 'confidential', 'restricted'].map((c) => h('option', { value: c }, c)))),
    h('div', {}, h('button', { type: 'submit' }, 'Show what it sees')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const v = Object.fromEntries(new FormData(form));
    const principal = {
      id: v['principal-id'].trim(),
      scopes: v['principal-scopes'].split(/\s+/).filter(Boolean),
      clearance: v['principal-clearance'],
      ...(v['principal-tenant'].trim() ? { tenant: v['principal-tenant'].trim() } : {}),
    };
    show(results, h('p', { class: 'muted' }, 'Resolving…'));
    try {
      const answer = await api('discovery', '/v1/discover', { method: 'POST', body: { principal } });
      const rows = answer.tools.map((t) => h('tr', { 'data-tool': t.name },
        h('td', {}, h('a', { href: `#/tool/${enc(t.name)}/${enc(t.version)}` }, t.name)), h('td', {}, t.version), h('td', {}, statusBadge(t.status)), h('td', {}, t.description)));
      show(results, rows.length
        ? table(`${answer.principal} sees ${count(rows.length, 'tool')}`, ['Tool', 'Version', 'Status', 'Description'], rows)
        : h('p', {}, `${answer.principal} sees no tools.`));
    } catch (error) {
      show(results, errorText(error));
    }
  });
  show(page, h('h2', {}, 'As this principal'),
    h('p', {}, 'The tools an agent with these scopes, tenant and clearance would discover at the edge, as discovery resolves them.'),
    form, results);
}
