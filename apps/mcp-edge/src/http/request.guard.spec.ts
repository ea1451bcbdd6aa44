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
});
