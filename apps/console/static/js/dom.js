// Every value reaches the page through text nodes: tool descriptions and audit payloads are
// untrusted, so nothing here ever assigns markup (no innerHTML anywhere in the console).

/** h('td', {class: 'x'}, 'text', child) → an element; strings become text nodes, null/false are skipped. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a container's content. */
export function show(container, ...children) {
  container.replaceChildren();
  append(container, children);
}

export function statusBadge(status) {
  return h('span', { class: `status status-${status}` }, status);
}

export function errorText(error) {
  return h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error));
}

/** A labelled form field: label and control tied by id, so screen readers announce them together. */
export function field(id, label, control) {
  control.id = id;
  if (!control.name) control.name = id;
  return h('div', {}, h('label', { for: id }, label), control);
}

export function table(caption, headings, rows) {
  return h('table', {},
    h('caption', { class: 'muted' }, caption),
    h('thead', {}, h('tr', {}, headings.map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, rows));
}

/** "1 tool", "3 tools". */
export function count(n, singular, plural = `${singular}s`) {
  return `${n} ${n === 1 ? singular : plural}`;
}
