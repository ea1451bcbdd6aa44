import { parseAllowEntry, targetAddressPolicy, type AllowEntry } from '@estate/platform';
import { parseSubscription } from './subscription.parser';

// As webhook.providers.ts builds it.
const strict = targetAddressPolicy([]);
const loopback = targetAddressPolicy([parseAllowEntry('127.0.0.0/8') as AllowEntry]);

describe('subscription request', () => {
  it('accepts a url, a filter and a secret', () => {
    const parsed = parseSubscription({ url: 'https://hooks.example.com/x', filter: { tools: ['pay.*'], types: ['ToolVersionDeprecated'] }, secret: 's'.repeat(32) }, strict);
    expect(parsed).toEqual({
      ok: true,
      value: { url: new URL('https://hooks.example.com/x'), filter: { tools: ['pay.*'], types: ['io.estate.tool.version.deprecated'] }, secret: 's'.repeat(32) },
    });
  });

  it.each([
    [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    [{ url: 'http://127.0.0.1:9/' }, 'url'],
    [{ url: 'http://[::1]/' }, 'url'],
    [{ url: 'ftp://hooks.example.com/' }, 'url'],
    [{ url: 'https://user:pw@hooks.example.com/' }, 'url'],
    [{ url: 'http://[2002:7f00:1::]/x' }, 'url'],
    [{ url: 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x' }, 'url'],
    [{ url: 'http://[::ffff:127.0.0.1]/x' }, 'url'],
    [{ url: 'http://[64:ff9b::7f00:1]/x' }, 'url'],
    [{ url: 'https://hooks.example.com/', filter: { tools: ['bad name'] } }, 'filter.tools[0]'],
    [{ url: 'https://hooks.example.com/', filter: { tools: ['pay.*', 'qa..*'] } }, 'filter.tools[1]'],
    [{ url: 'https://hooks.example.com/', filter: { tools: ['*.lookup'] } }, 'filter.tools[0]'],
    [{ url: 'https://hooks.example.com/', filter: { since: '2026-12-02T03:00:00' } }, 'filter.since'],
    [{ url: 'https://hooks.example.com/', filter: { types: ['Nope'] } }, 'filter.types[0]'],
    [{ url: 'https://hooks.example.com/', filter: { colour: 'red' } }, 'filter.colour'],
    [{ url: 'https://hooks.example.com/', secret: 'short' }, 'secret'],
    [{ url: 'https://hooks.example.com/', extra: 1 }, 'extra'],
  ])('refuses %j at %s', (body, path) => {
    expect(parseSubscription(body, strict)).toMatchObject({ ok: false, path });
  });

  it('says which IPv4 address a refused 6to4 target carries', () => {
    expect(parseSubscription({ url: 'http://[2002:7f00:1::]/x' }, strict)).toEqual({
      ok: false, path: 'url',
      message: '2002:7f00:1:: (a 6to4 or Teredo address carrying 127.0.0.1) is a link-local, metadata, loopback or private address; allow it with ESTATE_WEBHOOK_ALLOW',
    });
  });

  it('accepts well-formed globs and a 6to4 target that carries a public address', () => {
    expect(parseSubscription({ url: 'http://[2002:808:808::1]/x', filter: { tools: ['*', 'bank.tr*', 'payments.eu.*'] } }, strict)).toMatchObject({
      ok: true, value: { filter: { tools: ['*', 'bank.tr*', 'payments.eu.*'] } },
    });
  });

  it('admits loopback only when allowed', () => {
    expect(parseSubscription({ url: 'http://127.0.0.1:9/' }, loopback)).toMatchObject({ ok: true });
    expect(parseSubscription({ url: 'http://[2002:7f00:1::]/x' }, loopback)).toMatchObject({ ok: true });
    expect(parseSubscription({ url: 'http://169.254.169.254/' }, loopback)).toMatchObject({ ok: false, path: 'url' });
  });
});
