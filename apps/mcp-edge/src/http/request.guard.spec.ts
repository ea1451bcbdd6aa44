import { hostName } from './request.guard';

describe('hostName', () => {
  it.each([
    ['127.0.0.1:8000', '127.0.0.1'],
    ['LocalHost:1', 'localhost'],
    ['[::1]:8000', '[::1]'],
    ['mcp.bank.example', 'mcp.bank.example'],
    [undefined, ''],
  ])('reads %p as %p', (header, name) => {
    expect(hostName(header)).toBe(name);
  });

  it.each(['localhost:7290@evil.com', 'user@localhost', 'localhost/path', 'local host', 'localhost:80:81', 'localhost:port', '[::1]x', 'localhost:123456'])(
    'reads %p as no host at all',
    (header) => {
      expect(hostName(header)).toBeUndefined();
    },
  );
});
