import { parseAllowEntry, targetAddressPolicy, type AllowEntry } from '@estate/platform';
import { parseSubscription } from './subscription.parser';

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
    [{ url: 'https://hooks.example.com/', filter: { tools: ['bad name'] } }, 'filter.tools[0]'],
    [{ url: 'https://hooks.example.com/', filter: { types: ['Nope'] } }, 'filter.types[0]'],
    [{ url: 'https://hooks.example.com/', filter: { colour: 'red' } }, 'filter.colour'],
    [{ url: 'https://hooks.example.com/', secret: 'short' }, 'secret'],
    [{ url: 'https://hooks.example.com/', extra: 1 }, 'extra'],
  ])('refuses %j at %s', (body, path) => {
    expect(parseSubscription(body, strict)).toMatchObject({ ok: false, path });
  });

  it('admits loopback only when allowed', () => {
    expect(parseSubscription({ url: 'http://127.0.0.1:9/' }, loopback)).toMatchObject({ ok: true });
    expect(parseSubscription({ url: 'http://169.254.169.254/' }, loopback)).toMatchObject({ ok: false, path: 'url' });
  });
});
