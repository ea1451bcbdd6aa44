import { session } from './api.js';

// Audit's tool-change stream needs the Authorization header, which EventSource cannot send: a
// fetch with a streamed body, parsed as server-sent events here, reconnecting with Last-Event-ID.
const RETRY_MS = 2000;
const KEEP = 200;

export const feed = {
  state: 'closed',
  entries: [],
  listeners: new Set(),
  controller: null,
  lastEventId: null,

  on(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  },

  emit(kind, entry) {
    for (const listener of this.listeners) listener(kind, entry);
  },

  setState(state, detail = '') {
    this.state = state;
    this.detail = detail;
    this.emit('state');
  },

  start() {
    if (this.controller) return;
    this.controller = new AbortController();
    void this.run(this.controller.signal);
  },

  /** On sign-out: the next holder of the tab starts from now, not from the last one's position. */
  stop() {
    this.controller?.abort();
    this.controller = null;
    this.lastEventId = null;
    this.entries = [];
    this.setState('closed');
  },

  async run(signal) {
    while (!signal.aborted) {
      this.setState(this.lastEventId ? 'reconnecting' : 'connecting');
      try {
        const headers = { authorization: `Bearer ${session.token()}`, accept: 'text/event-stream' };
        if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
        const response = await fetch('/api/audit/v1/events/stream', { headers, signal });
        if (!response.ok || !response.body) {
          const body = await response.json().catch(() => ({}));
          this.setState('closed', `${response.status} ${body.message ?? ''}`);
          if (response.status === 401 || response.status === 403) return;
        } else {
          this.setState('live');
          await this.read(response.body, signal);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.setState('reconnecting', error.message);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  },

  async read(body, signal) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    while (!signal.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        this.frame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  },

  frame(text) {
    let id = null;
    const data = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) return;
    if (id) this.lastEventId = id;
    try {
      const entry = JSON.parse(data.join('\n'));
      this.entries.unshift(entry);
      this.entries.length = Math.min(this.entries.length, KEEP);
      this.emit('entry', entry);
    } catch {
      // A frame that is not JSON is not a tool change; the stream goes on.
    }
  },
};
