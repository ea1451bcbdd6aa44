import { SubscriptionsListenRequestSchema } from '@modelcontextprotocol/core';

import { fits } from '../test/sdk-shapes.support';
import { acknowledgedFilter, filterAdmits, parseSubscriptionFilter } from './subscription-filter.parser';

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

describe('parseSubscriptionFilter', () => {
  it('reads the kinds a listen request opts in to', () => {
    const params = { _meta: meta, notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['file:///a', 'file:///a', 'file:///b'] } };
    expect(fits(SubscriptionsListenRequestSchema, { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params })).toBe(true);
    expect(parseSubscriptionFilter(params)).toEqual({ ok: true, filter: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['file:///a', 'file:///b'] } });
  });

  it('reads an empty filter as subscribing to nothing, and ignores kinds it does not know', () => {
    expect(parseSubscriptionFilter({ notifications: {} })).toEqual({ ok: true, filter: {} });
    expect(parseSubscriptionFilter({ notifications: { weatherChanged: true } })).toEqual({ ok: true, filter: {} });
  });

  it.each([
    [{}, 'Invalid params: params.notifications: must be an object naming the notifications to receive, got nothing (member missing)'],
    [undefined, 'Invalid params: params.notifications: must be an object naming the notifications to receive, got nothing (member missing)'],
    [{ notifications: [] }, 'Invalid params: params.notifications: must be an object naming the notifications to receive, got array'],
    [{ notifications: { toolsListChanged: 'yes' } }, 'Invalid params: params.notifications.toolsListChanged: must be a boolean, got string'],
    [{ notifications: { resourcesListChanged: 1 } }, 'Invalid params: params.notifications.resourcesListChanged: must be a boolean, got integer'],
    [{ notifications: { resourceSubscriptions: 'file:///a' } }, 'Invalid params: params.notifications.resourceSubscriptions: must be an array of resource URIs, got string'],
    [{ notifications: { resourceSubscriptions: ['file:///a', 7] } }, 'Invalid params: params.notifications.resourceSubscriptions[1]: must be a non-empty string, got integer'],
    [{ notifications: { resourceSubscriptions: [''] } }, 'Invalid params: params.notifications.resourceSubscriptions[0]: must be a non-empty string, got string'],
  ])('refuses %p with -32602 naming the member', (params, message) => {
    expect(parseSubscriptionFilter(params)).toEqual({ ok: false, error: { code: -32602, message } });
  });
});

describe('acknowledgedFilter', () => {
  it('honours only what the server can send: tools list changes at the edge, no prompts, watched URIs only', () => {
    const requested = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: false, resourceSubscriptions: ['file:///a', 'https://b'] };
    expect(acknowledgedFilter(requested, { flags: ['toolsListChanged', 'resourcesListChanged'], canWatch: (uri) => uri.startsWith('file:') })).toEqual({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] });
  });

  it('drops resource subscriptions entirely when the server watches no resources', () => {
    expect(acknowledgedFilter({ resourceSubscriptions: ['file:///a'] }, { flags: [] })).toEqual({});
  });
});

describe('filterAdmits', () => {
  const filter = { toolsListChanged: true, resourceSubscriptions: ['file:///a'] };

  it.each([
    ['notifications/tools/list_changed', undefined, true],
    ['notifications/prompts/list_changed', undefined, false],
    ['notifications/resources/list_changed', undefined, false],
    ['notifications/resources/updated', 'file:///a', true],
    ['notifications/resources/updated', 'file:///b', false],
    ['notifications/resources/updated', undefined, false],
    // Request-scoped notifications never go on a listen stream.
    ['notifications/progress', undefined, false],
    ['notifications/message', undefined, false],
  ])('%s (%p) → %p', (method, uri, admitted) => {
    expect(filterAdmits(filter, method, uri)).toBe(admitted);
  });
});
