import { api } from './api.js';
import { count, errorText, field, h, show, table } from './dom.js';

const FILTERS = [['tool', 'Tool'], ['version', 'Version'], ['principal', 'Principal'], ['type', 'Event type'], ['outcome', 'Outcome']];

function entryRow(e) {
  return h('tr', { 'data-seq': e.seq },
    h('td', {}, String(e.seq)), h('td', {}, e.occurredAt), h('td', {}, e.type), h('td', {}, e.tool ?? '—'), h('td', {}, e.version ?? '—'),
    h('td', {}, e.principal), h('td', {}, e.outcome ?? '—'));
}

function verifyText(report) {
  const parts = Object.entries(report).filter(([, v]) => typeof v !== 'object').map(([k, v]) => `${k}: ${v}`);
  return h('p', { id: 'chain-status', class: report.ok ? 'ok' : 'error' }, report.ok ? 'Chain verified and complete. ' : 'Verification failed. ', h('span', { class: 'muted' }, parts.join(' · ')));
}

/** Newest first; the next page loads when the end of the table scrolls into view (the cursor from the last answer). */
export function renderAudit(page) {
  const inputs = Object.fromEntries(FILTERS.map(([name]) => [name, h('input', { type: 'text' })]));
  const from = h('input', { type: 'datetime-local' });
  const to = h('input', { type: 'datetime-local' });
  const form = h('form', { id: 'audit-filters', class: 'filters' },
    FILTERS.map(([name, label]) => field(`audit-${name}`, label, inputs[name])),
    field('audit-from', 'From', from), field('audit-to', 'To', to),
    h('div', {}, h('button', { type: 'submit' }, 'Apply filters')));
  const tbody = h('tbody', {});
  const status = h('p', { id: 'audit-status', class: 'muted', role: 'status' });
  const sentinel = h('div', { 'aria-hidden': 'true' });
  const verify = h('div', {});
  const exportButton = h('button', { type: 'button', class: 'secondary' }, 'Export loaded entries (JSON)');
  let cursor = null;
  let loading = false;
  let loaded = [];
  let generation = 0;

  const query = () => {
    const params = new URLSearchParams();
    for (const [name] of FILTERS) if (inputs[name].value.trim()) params.set(name, inputs[name].value.trim());
    if (from.value) params.set('from', new Date(from.value).toISOString());
    if (to.value) params.set('to', new Date(to.value).toISOString());
    params.set('limit', '50');
    return params;
  };
  const more = async (first) => {
    if (loading || (!first && !cursor)) return;
    loading = true;
    const mine = first ? ++generation : generation;
    const params = query();
    if (!first) params.set('cursor', cursor);
    try {
      const answer = await api('audit', `/v1/audit?${params}`);
      if (mine !== generation) return;
      if (first) { tbody.replaceChildren(); loaded = []; }
      loaded.push(...answer.entries);
      tbody.append(...answer.entries.map(entryRow));
      cursor = answer.nextCursor;
      status.textContent = `${count(loaded.length, 'entry', 'entries')} loaded${cursor ? '; scroll for more' : '; end of the trail'}.`;
    } catch (error) {
      show(status, errorText(error));
    } finally {
      loading = false;
      // An observer reports changes only: a sentinel that came into view while a page was loading
      // was ignored then. Observing again delivers its current state, so a visible end loads more.
      observer.unobserve(sentinel);
      observer.observe(sentinel);
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    cursor = null;
    void more(true);
  });
  exportButton.addEventListener('click', () => {
    const blob = new Blob([JSON.stringify(loaded, null, 2)], { type: 'application/json' });
    const link = h('a', { href: URL.createObjectURL(blob), download: 'estate-audit.json' });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  const observer = new IntersectionObserver((seen) => seen.some((s) => s.isIntersecting) && void more(false));
  const list = table('Audit entries, newest first', ['Seq', 'Occurred', 'Type', 'Tool', 'Version', 'Principal', 'Outcome'], []);
  list.querySelector('tbody').replaceWith(tbody);
  list.id = 'audit-table';
  show(page, h('h2', {}, 'Audit trail'), verify, form, exportButton, status, list, sentinel);
  observer.observe(sentinel);
  api('audit', '/v1/audit/verify').then((r) => show(verify, verifyText(r)), (e) => show(verify, errorText(e)));
  void more(true);
  return () => observer.disconnect();
}
