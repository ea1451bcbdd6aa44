import { api, enc, session } from './api.js';
import { count, errorText, field, h, show, statusBadge, table } from './dom.js';

const byVersionDesc = (a, b) => b.localeCompare(a, undefined, { numeric: true });
const json = (value) => JSON.stringify(value, null, 2);

function contract(name, version, state) {
  const spec = state.spec;
  const status = state.quarantined ? 'quarantined' : state.status;
  return h('section', { 'aria-labelledby': 'contract-heading' },
    h('h3', { id: 'contract-heading' }, 'Contract'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Status'), h('dd', {}, statusBadge(status), state.sunsetAt ? ` sunset ${state.sunsetAt}` : ''),
      h('dt', {}, 'Title'), h('dd', {}, spec.title ?? '—'),
      h('dt', {}, 'Description'), h('dd', { id: 'tool-description' }, spec.description),
      h('dt', {}, 'Side effect'), h('dd', {}, spec.sideEffect),
      h('dt', {}, 'Required scopes'), h('dd', {}, spec.requiredScopes.join(', ') || 'none'),
      h('dt', {}, 'Tenants'), h('dd', {}, spec.tenants.join(', ') || 'all'),
      h('dt', {}, 'Classification'), h('dd', {}, spec.dataClassification),
      h('dt', {}, 'Owner'), h('dd', {}, spec.owner),
      h('dt', {}, 'Upstream'), h('dd', {}, `${spec.upstream.server} / ${spec.upstream.tool}`)),
    h('h4', {}, 'Input schema'), h('pre', {}, json(spec.inputSchema)),
    spec.outputSchema ? [h('h4', {}, 'Output schema'), h('pre', {}, json(spec.outputSchema))] : h('p', { class: 'muted' }, `${name}@${version} declares no output schema.`));
}

function diffSection(diff) {
  const heading = h('h3', { id: 'diff-heading' }, 'Changes from the previous version');
  if (!diff.previous) return h('section', { id: 'diff', 'aria-labelledby': 'diff-heading' }, heading, h('p', {}, 'The first published version: nothing to compare.'));
  const rows = diff.changes.map((c) => h('tr', {},
    h('td', {}, h('code', {}, c.path)), h('td', {}, c.kind), h('td', { class: c.breaking ? 'breaking' : '' }, c.breaking ? `${c.bump} (breaking)` : c.bump), h('td', {}, c.message)));
  return h('section', { id: 'diff', 'aria-labelledby': 'diff-heading' }, heading,
    h('p', {}, `${diff.previous} → ${diff.version}: declared ${diff.declared}, the classifier requires ${diff.required}.`),
    table(count(diff.changes.length, 'change'), ['Path', 'Kind', 'Bump', 'What changed'], rows),
    'witness' in diff
      ? [h('h4', {}, 'Witness'), h('p', {}, `A value ${diff.previous} accepted and ${diff.version} refuses:`), h('pre', { id: 'witness' }, json(diff.witness))]
      : null);
}

function callersSection(result) {
  const heading = h('h3', { id: 'callers-heading' }, 'Callers (from the audit trail)');
  if (result instanceof Error) return h('section', { 'aria-labelledby': 'callers-heading' }, heading, errorText(result));
  const rows = result.callers.map((c) => h('tr', {}, h('td', {}, c.principal), h('td', {}, c.version ?? '—'), h('td', {}, String(c.calls)), h('td', {}, String(c.refused)), h('td', {}, c.lastCallAt)));
  return h('section', { 'aria-labelledby': 'callers-heading' }, heading,
    rows.length ? table('Principals that called this version', ['Principal', 'Version', 'Calls', 'Refused', 'Last call'], rows) : h('p', { class: 'muted' }, 'No recorded calls.'));
}

/** A lifecycle action: the form asks, a second explicit step confirms, the registry decides. */
function action({ id, title, fields, describe, submit, done }) {
  const outcome = h('div', { role: 'status' });
  const form = h('form', { id, 'aria-labelledby': `${id}-heading` }, h('h4', { id: `${id}-heading` }, title), fields, h('button', { type: 'submit' }, title), outcome);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    const confirm = h('div', { class: 'confirm', role: 'alertdialog', 'aria-label': `Confirm: ${title}` },
      h('p', {}, describe(values)),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        try {
          await submit(values);
          show(outcome, h('p', { class: 'ok' }, `Done: ${title.toLowerCase()}.`));
          done();
        } catch (error) {
          show(outcome, errorText(error));
        }
      } }, `Confirm ${title.toLowerCase()}`),
      h('button', { type: 'button', class: 'secondary', onclick: () => show(outcome) }, 'Cancel'));
    show(outcome, confirm);
    confirm.querySelector('button').focus();
  });
  return form;
}

function actions(name, version, versions, reload) {
  const path = `/v1/tools/${enc(name)}/versions/${enc(version)}`;
  const others = versions.filter((v) => v !== version);
  const deprecate = action({
    id: 'deprecate', title: 'Deprecate',
    fields: [
      field('deprecate-reason', 'Reason', h('input', { type: 'text', required: true, maxlength: 500 })),
      field('deprecate-sunset', 'Sunset date', h('input', { type: 'date' })),
      field('deprecate-replacement', 'Successor version', h('select', {}, h('option', { value: '' }, 'none'), others.map((v) => h('option', { value: v }, v)))),
    ],
    describe: (v) => `Deprecate ${name}@${version}${v['deprecate-sunset'] ? `, retiring on ${v['deprecate-sunset']}` : ''}${v['deprecate-replacement'] ? `, in favour of ${v['deprecate-replacement']}` : ''}?`,
    submit: (v) => api('registry', `${path}/deprecate`, { method: 'POST', body: {
      reason: v['deprecate-reason'],
      ...(v['deprecate-sunset'] ? { sunsetAt: `${v['deprecate-sunset']}T00:00:00Z` } : {}),
      ...(v['deprecate-replacement'] ? { replacement: v['deprecate-replacement'] } : {}),
    } }),
    done: reload,
  });
  const retire = action({
    id: 'retire', title: 'Retire',
    fields: [field('retire-reason', 'Reason', h('input', { type: 'text', required: true, maxlength: 500 }))],
    describe: () => `Retire ${name}@${version}? Callers pinned to it will be refused from now on.`,
    submit: (v) => api('registry', `${path}/retire`, { method: 'POST', body: { reason: v['retire-reason'] } }),
    done: reload,
  });
  return h('section', { 'aria-labelledby': 'actions-heading' }, h('h3', { id: 'actions-heading' }, 'Actions'), deprecate, retire);
}

export function renderTool(page, name, wanted) {
  const draw = async () => {
    try {
      const tool = await api('registry', `/v1/tools/${enc(name)}`);
      const versions = Object.keys(tool.versions).sort(byVersionDesc);
      const version = wanted && tool.versions[wanted] ? wanted : versions[0];
      const state = tool.versions[version];
      if (!state.spec) throw new Error('this token reads only what an agent sees: sign in as a publisher or admin');
      const [diff, callers] = await Promise.all([
        api('registry', `/v1/tools/${enc(name)}/versions/${enc(version)}/diff`).catch((e) => ({ error: e })),
        api('audit', `/v1/tools/${enc(name)}/callers?version=${enc(version)}`).catch((e) => e),
      ]);
      const canAct = session.claims().scopes.includes('estate:publish') && state.status !== 'retired';
      show(page,
        h('h2', {}, `${name} `, h('span', { class: 'muted' }, version)),
        h('nav', { 'aria-label': 'Versions' }, 'Versions: ', versions.map((v) =>
          h('a', { href: `#/tool/${enc(name)}/${enc(v)}`, 'aria-current': v === version ? 'page' : null }, v), ' ')),
        contract(name, version, state),
        diff.error ? errorText(diff.error) : diffSection(diff),
        callersSection(callers),
        canAct ? actions(name, version, versions, draw) : null);
    } catch (error) {
      show(page, h('h2', {}, name), errorText(error));
    }
  };
  show(page, h('p', { class: 'muted' }, 'Loading…'));
  void draw();
}
