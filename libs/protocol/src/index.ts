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
export {
  MCP_METHOD,
  SessionLifecycle,
  type SessionLifecycleOptions,
  type SessionPhase,
} from './session-lifecycle.machine';
