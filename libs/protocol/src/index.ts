export { checkBatchAllowed, supportsBatching } from './batch.policy';
export {
  inspectIncoming,
  inspectIncomingText,
  type BatchDecision,
  type DropDecision,
  type IncomingDecision,
  type MessageDecision,
  type ProcessDecision,
  type ReplyDecision,
} from './incoming-message.inspector';
export { hasMember, isJsonObject, isJsonRpcId, isJsonRpcParams, isJsonRpcResponse } from './json-rpc-id.guard';
export {
  invalidRequestError,
  makeError,
  makeErrorObject,
  makeNotification,
  makeRequest,
  makeResult,
  parseErrorObject,
  toErrorResponse,
} from './json-rpc-message.builder';
export {
  classifyMessage,
  type InvalidMessage,
  type MessageClassification,
  type MessageShape,
} from './json-rpc-message.classifier';
export {
  JSON_RPC_ERROR,
  JSONRPC_VERSION,
  type JsonRpcErrorCode,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
} from './json-rpc.types';
export { parseJson, type JsonParseResult } from './json-text.parser';
export { describeJsonType } from './json-value.describer';
export { LifecycleTransitionError } from './lifecycle-transition.error';
export {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isSupportedProtocolVersion,
  negotiateProtocolVersion,
  type ProtocolVersion,
} from './protocol-version.negotiator';
export { DEFAULT_MAX_TRACKED_IDS, RequestIdRegistry } from './request-id.registry';
export { sessionRevision, type SessionRevision } from './session-revision.shaper';
export {
  MCP_METHOD,
  SessionLifecycle,
  type SessionLifecycleOptions,
  type SessionPhase,
} from './session-lifecycle.machine';
export { decodeHeaderValue, encodeHeaderValue, type DecodedHeader } from './header-value.decoder';
export {
  INPUT_REQUEST_METHODS,
  INPUT_REQUIRED_METHODS,
  checkInputCapabilities,
  confirmationRequest,
  declaresElicitationMode,
  inputRequiredResult,
  isInputRequiredMethod,
  relayedElicitation,
  requiredCapabilities,
  type InputRequest,
  type InputRequestMethod,
  type InputRequests,
  type InputRequired,
} from './input-required.builder';
export {
  elicitationAnswer,
  parseRetryInputs,
  type ElicitationAnswer,
  type RetryInputs,
  type RetryInputsResult,
} from './input-responses.parser';
export { isPrefixedMetaKey, isReservedMetaKey, isValidMetaKey } from './meta-key.guard';
export {
  ALL_PROTOCOL_VERSIONS,
  STATELESS_CLIENT_METHODS,
  isStatelessClientMethod,
  negotiateMessageEra,
  negotiateRequestEra,
  type EraDecision,
  type HttpRequestFacts,
  type StatelessClientMethod,
} from './request-era.negotiator';
export {
  MCP_HEADER,
  NAMED_METHODS,
  checkRequestHeaders,
  readHeader,
  type HeaderLookup,
  type HttpHeaders,
} from './request-headers.validator';
export { declaresRequestVersion, parseRequestMeta, type RequestMetaResult } from './request-meta.parser';
export {
  RETIRED_ERROR_CODES,
  SPEC_RESERVED_ERROR_RANGE,
  STATELESS_ERROR,
  headerMismatchError,
  httpStatusForStatelessError,
  invalidParamsAt,
  isStatelessErrorCodeAllowed,
  missingClientCapabilityError,
  resourceNotFoundCode,
  unsupportedProtocolVersionError,
  type StatelessErrorCode,
  type StatelessErrorName,
} from './revision-error.table';
export {
  LOG_LEVELS,
  MCP_META_KEY,
  STATELESS_PROTOCOL_VERSION,
  type CacheScope,
  type ClientCapabilities,
  type Implementation,
  type JsonObject,
  type LogLevel,
  type RequestMeta,
  type ResultType,
  type ServerCapabilities,
  type StatelessProtocolVersion,
} from './stateless-revision.types';
export {
  CACHEABLE_METHODS,
  cacheHints,
  completeResult,
  discoverResult,
  isCacheableMethod,
  perPrincipalCacheHints,
  resultTypeOf,
  withServerInfo,
  type CacheHints,
  type CacheableMethod,
  type DiscoverDescription,
} from './stateless-result.builder';
export {
  LIST_CHANGED_FLAG,
  acknowledgedFilter,
  filterAdmits,
  parseSubscriptionFilter,
  type SubscriptionFilter,
  type SubscriptionFilterResult,
} from './subscription-filter.parser';
export {
  SUBSCRIPTION_ACKNOWLEDGED,
  subscriptionAcknowledged,
  subscriptionClosed,
  subscriptionNotification,
} from './subscription-message.builder';
export { logLevelAdmits } from './log-level.policy';
export {
  PARAM_HEADER_KEYWORD,
  PARAM_HEADER_PREFIX,
  checkParamHeaders,
  paramHeadersOf,
  type ParamHeader,
  type ParamHeadersResult,
} from './param-headers.validator';
export { decodeBase64, decodeText, decodeUtf8, encodeBase64, encodeText, type Base64Variant } from './base64.codec';
export {
  openRequestState,
  requestStateRejectedError,
  sealRequestState,
  type OpenedState,
  type RequestStateBinding,
  type SealedState,
  type StateMac,
  type StateRejection,
} from './request-state.codec';
export { forgetOldest, keepWithin } from './bounded-map';
