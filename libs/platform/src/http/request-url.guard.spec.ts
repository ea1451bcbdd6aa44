import { requestUrlProblem } from './request-url.guard';

describe('requestUrlProblem', () => {
  it.each([
    ['/v1/tools/%00', /NUL/],
    ['/v1/audit?tool=a%00b', /NUL/],
    ['/v1/tools/%E0%A4%A', /malformed/],
    ['/v1/tools/%', /malformed/],
    ['/v1/tools/%ED%A0%80', /not UTF-8/],
    ['/v1/tools/%FF', /not UTF-8/],
    [`/v1/tools/${'x'.repeat(5000)}`, /longer than/],
  ])('refuses %s', (url, problem) => {
    expect(requestUrlProblem(url)).toMatch(problem);
  });

  it.each(['/v1/tools/bank.lookup', '/v1/audit?tool=bank.lookup&from=2024-01-01', '/v1/tools/%F0%9F%98%80', '/v1/audit?x=a+b%20c'])('lets %s through', (url) => {
    expect(requestUrlProblem(url)).toBeUndefined();
  });
});
