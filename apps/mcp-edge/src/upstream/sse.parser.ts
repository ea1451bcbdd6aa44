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
  /** The unterminated line so far, as the chunks it came in: joined once, when the line ends. */
  private partial: string[] = [];
  private partialChars = 0;
  /** The last chunk ended in \r: a \n opening the next one belongs to the same line break. */
  private skipLf = false;
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
   * Only the new chunk is searched and nothing is concatenated until a line ends, so a long line
   * costs linear time and no copies.
   */
  push(text: string): void {
    if (this.overflowed) return;
    let start = this.skipLf && text.startsWith('\n') ? 1 : 0;
    this.skipLf = false;
    // The next \r is looked up again only once passed: a chunk without one is scanned for it once.
    let cr = text.indexOf('\r', start);
    for (;;) {
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      const end = cr < 0 || (lf >= 0 && lf < cr) ? lf : cr;
      if (end < 0) break;
      const tail = text.slice(start, end);
      const line = this.partial.length > 0 ? this.partial.join('') + tail : tail;
      this.partial = [];
      this.partialChars = 0;
      this.line(line);
      if (text[end] === '\r' && end === text.length - 1) this.skipLf = true;
      start = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
    }
    if (start < text.length) {
      this.partial.push(text.slice(start));
      this.partialChars += text.length - start;
    }
    const pending = this.held + this.partialChars;
    if (pending > this.maxEventChars) this.overflow(pending);
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
    this.partial = [];
    this.data = [];
    this.held = 0;
    this.handlers.onOverflow?.(chars);
  }
}

