import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The page and its scripts come from apps/console/static in the repository, as written: there is
 * no front-end build. From source that is ../static; from dist/apps/console/src it is the same
 * folder four levels up (swc compiles TypeScript only and never copies it).
 */
export function staticDir(): string {
  const candidates = [path.resolve(__dirname, '..', 'static'), path.resolve(__dirname, '..', '..', '..', '..', 'apps', 'console', 'static')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'index.html')));
  if (!found) throw new Error(`the console's static files are missing (looked in ${candidates.join(', ')})`);
  return found;
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

/** Every file read once at boot: a request can only name one of them, never a path on disk. */
export function staticFiles(dir: string) {
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const name of listFiles(dir)) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(`/${name}`, { type, body: readFileSync(path.join(dir, name)) });
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    const pathname = (req.url ?? '/').split('?')[0];
    const file = files.get(pathname === '/' ? '/index.html' : pathname);
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end('not found');
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };
}
