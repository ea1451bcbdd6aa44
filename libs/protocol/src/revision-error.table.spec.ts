import { revisionErrorErrors } from '../test/sdk-shapes.support';
import { toErrorResponse } from './json-rpc-message.builder';
import {
  RETIRED_ERROR_CODES,
  STATELESS_ERROR,
  headerMismatchError,
  httpStatusForStatelessError,
  isStatelessErrorCodeAllowed,
  missingClientCapabilityError,
  resourceNotFoundCode,
  unsupportedProtocolVersionError,
} from './revision-error.table';

describe('the 2026-07-28 error table', () => {
  it('numbers the three new errors as the revision does, each travelling with HTTP 400', () => {
    expect(STATELESS_ERROR).toEqual({
      HeaderMismatch: { code: -32020, httpStatus: 400 },
      MissingRequiredClientCapability: { code: -32021, httpStatus: 400 },
      UnsupportedProtocolVersion: { code: -32022, httpStatus: 400 },
    });
  });

  it.each([
    ['HeaderMismatch' as const, toErrorResponse(1, headerMismatchError('Mcp-Name header value "a" does not match body value "b"'))],
    ['UnsupportedProtocolVersion' as const, toErrorResponse('x', unsupportedProtocolVersionError('1900-01-01', ['2026-07-28']))],
    ['MissingRequiredClientCapability' as const, toErrorResponse(2, missingClientCapabilityError({ elicitation: { form: {} } }, 'elicitation.form'))],
  ])('builds a %s the schema accepts', (definition, response) => {
    expect(revisionErrorErrors(definition, response)).toEqual([]);
  });

  it('allows no retired code, and no undefined code of the reserved range, in a stateless answer', () => {
    expect(RETIRED_ERROR_CODES.map((retired) => retired.code)).toEqual([-32002, -32042]);
    for (const code of [-32002, -32042, -32023, -32099, -32050]) expect(isStatelessErrorCodeAllowed(code)).toBe(false);
    for (const code of [-32020, -32021, -32022, -32600, -32601, -32602, -32603, -32700, -32000, -32019, -1, 1000]) expect(isStatelessErrorCodeAllowed(code)).toBe(true);
  });

  it('reports a missing resource as -32602 in the stateless revision and -32002 in the session ones', () => {
    expect(resourceNotFoundCode('stateless')).toBe(-32602);
    expect(resourceNotFoundCode('legacy')).toBe(-32002);
  });

  it.each([
    [-32020, 400],
    [-32021, 400],
    [-32022, 400],
    [-32602, 400],
    [-32600, 400],
    [-32700, 400],
    [-32601, 404],
    [-32603, 500],
    [-32000, 500],
  ])('sends %i with HTTP %i', (code, status) => {
    expect(httpStatusForStatelessError(code)).toBe(status);
  });

  it('names what is missing in a -32021 and lists it in data.requiredCapabilities', () => {
    expect(missingClientCapabilityError({ sampling: {} }, 'sampling')).toEqual({ code: -32021, message: 'Missing required client capability: sampling', data: { requiredCapabilities: { sampling: {} } } });
  });
});
