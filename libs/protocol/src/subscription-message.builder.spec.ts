import {
  JSONRPCResultResponseSchema,
  ResourceUpdatedNotificationSchema,
  SubscriptionsAcknowledgedNotificationSchema,
  SubscriptionsListenResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/core';

import { completeResultErrors, shapeErrors } from '../test/sdk-shapes.support';
import { subscriptionAcknowledged, subscriptionClosed, subscriptionNotification } from './subscription-message.builder';

describe('messages on a subscriptions/listen stream', () => {
  it('acknowledges with the listen request id as subscription id and the honoured filter', () => {
    const ack = subscriptionAcknowledged('listen-1', { toolsListChanged: true });
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' }, notifications: { toolsListChanged: true } },
    });
    expect(shapeErrors(SubscriptionsAcknowledgedNotificationSchema, ack)).toEqual([]);
  });

  it('tags a tools list change with the subscription id, in a shape the schema accepts', () => {
    const note = subscriptionNotification(7, { toolsListChanged: true }, 'notifications/tools/list_changed');
    expect(note).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } });
    expect(shapeErrors(ToolListChangedNotificationSchema, note)).toEqual([]);
  });

  it('tags a resource update with the subscription id and keeps its URI', () => {
    const note = subscriptionNotification(7, { resourceSubscriptions: ['file:///a'] }, 'notifications/resources/updated', { uri: 'file:///a' });
    expect(shapeErrors(ResourceUpdatedNotificationSchema, note)).toEqual([]);
    expect(note?.params).toEqual({ uri: 'file:///a', _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } });
  });

  it('sends nothing of a kind the stream did not opt in to', () => {
    expect(subscriptionNotification(7, { toolsListChanged: true }, 'notifications/prompts/list_changed')).toBeNull();
    expect(subscriptionNotification(7, {}, 'notifications/tools/list_changed')).toBeNull();
    expect(subscriptionNotification(7, { resourceSubscriptions: ['file:///a'] }, 'notifications/resources/updated', { uri: 'file:///b' })).toBeNull();
  });

  it('does not let notification params replace the subscription id, and keeps their other _meta members', () => {
    const note = subscriptionNotification(7, { toolsListChanged: true }, 'notifications/tools/list_changed', { _meta: { 'io.modelcontextprotocol/subscriptionId': 99, traceparent: 't' } });
    expect(note?.params?.['_meta']).toEqual({ 'io.modelcontextprotocol/subscriptionId': 7, traceparent: 't' });
  });

  it('ends a stream gracefully with a complete result carrying the subscription id', () => {
    const closed = subscriptionClosed(7, { name: 'estate-edge', version: '0.9.0' });
    expect(closed).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 7, 'io.modelcontextprotocol/serverInfo': { name: 'estate-edge', version: '0.9.0' } } },
    });
    expect(completeResultErrors(SubscriptionsListenResultSchema, closed.result)).toEqual([]);
    expect(shapeErrors(JSONRPCResultResponseSchema, closed)).toEqual([]);
  });
});
