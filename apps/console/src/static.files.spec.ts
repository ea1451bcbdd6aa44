import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { staticDir } from './static.files';

/**
 * The console renders untrusted text (tool descriptions, audit payloads) and promises to do so
 * only through text nodes, under a policy with no inline script or style. These sources keep
 * that promise checkable: no markup sinks, no inline code in the page.
 */
describe('console static files', () => {
  const dir = staticDir();
  const scripts = readdirSync(path.join(dir, 'js')).filter((name) => name.endsWith('.js'));

  it('has scripts to check', () => {
    expect(scripts).toEqual(expect.arrayContaining(['main.js', 'dom.js', 'feed.js']));
  });

  it.each(scripts)('%s assigns no markup and evaluates no strings', (name) => {
    // Comments may name what the code avoids; only code counts.
    const code = readFileSync(path.join(dir, 'js', name), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'EventSource', 'localStorage']) {
      expect({ name, sink, used: code.includes(sink) }).toEqual({ name, sink, used: false });
    }
  });

  it('index.html loads its script and style from files, with nothing inline', () => {
    const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });
});
