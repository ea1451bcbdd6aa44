/** One dispatched Server-Sent Event: `data` lines joined by newlines, `id` as last seen on the stream. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export interface SseHandlers {
  onEvent(event: SseEvent): void;
  onRetry?(ms: number): void;
  /** Called once when one event grows past the limit; the parser then ignores the rest of the stream. */
  onOverflow?(chars: number): void;
}

/** An event is refused once its text (incomplete line plus data lines) passes this many characters. */
export const DEFAULT_MAX_EVENT_CHARS = 4 * 1024 * 1024;

/**
 * An incremental parser for the text/event-stream format (WHATWG HTML §9.2): feed it decoded text
 * as it arrives, in chunks of any size; it calls back once per complete event. Comment lines
 * (keep-alives) and unknown fields are ignored; an event with an id and no data (the priming
 * event) still reports its id.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private lastId?: string;
  private sawId = false;
  /** Characters held for the event being read: its data lines so far. */
  private held = 0;
  private overflowed = false;

  constructor(private readonly handlers: SseHandlers, private readonly maxEventChars = DEFAULT_MAX_EVENT_CHARS) {}

  /**
   * Bounded while streaming: an upstream that never ends an event (or a line) cannot make the
   * edge hold more than the limit plus one chunk, since what is pending is checked after each.
   */
  push(text: string): void {
    if (this.overflowed) return;
    // What is already held has no line break (bar a trailing \r): search only the new text, so a
    // long unterminated line costs linear time, not quadratic.
    const from = Math.max(0, this.buffer.length - 1);
    this.buffer += text;
    let start = 0;
    for (;;) {
      const end = this.lineEnd(Math.max(start, from));
      if (end < 0) break;
      this.line(this.buffer.slice(start, end));
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1);
    }
    this.buffer = this.buffer.slice(start);
    const pending = this.held + this.buffer.length;
    if (pending > this.maxEventChars) this.overflow(pending);
  }

  /** The index of the next line break from `start`; a lone trailing \r waits for more text (it may be \r\n). */
  private lineEnd(start: number): number {
    const lf = this.buffer.indexOf('\n', start);
    const cr = this.buffer.indexOf('\r', start);
    if (cr < 0 || (lf >= 0 && lf < cr)) return lf;
    return cr === this.buffer.length - 1 ? -1 : cr;
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.held += value.length + 1;
    }
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) {
      this.lastId = value;
      this.sawId = true;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.handlers.onRetry?.(Number(value));
  }

  private dispatch(): void {
    if (this.data.length > 0 || this.sawId) {
      this.handlers.onEvent({ event: this.event || 'message', data: this.data.join('\n'), id: this.lastId });
    }
    this.data = [];
    this.held = 0;
    this.event = '';
    this.sawId = false;
  }

  private overflow(chars: number): void {
    this.overflowed = true;
    this.buffer = '';
    this.data = [];
    this.held = 0;
    this.handlers.onOverflow?.(chars);
  }
}
