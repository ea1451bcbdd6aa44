import type { CatalogEntry } from '@estate/events';

/** Characters of entry text kept for all tools together (about 16 MB of text plus its parsed objects). */
export const ENTRY_MEMO_MAX_CHARS = 8_000_000;

/**
 * Catalog entries and their JSON text, both ways. An entry holds every version of its tool, so
 * each batch that touches a tool parsed its whole stored entry, wrote it back whole and published
 * it whole: three passes over text that grows with every version (a tool with 300 small versions
 * has about 200 KB). The text written last is kept with the entry it came from: when the row read
 * next holds exactly that text (a json column returns its text as written), the kept entry is the
 * parse, and an entry stringified for its row is not stringified again for the catalog topic.
 * Entries are immutable (the fold returns new objects), so a kept one is never changed.
 */
export class EntryTexts {
  private readonly byName = new Map<string, { text: string; entry: CatalogEntry }>();
  private readonly texts = new WeakMap<CatalogEntry, string>();
  private chars = 0;

  constructor(private readonly maxChars = ENTRY_MEMO_MAX_CHARS) {}

  /** The entry a stored row's text holds. */
  parse(name: string, text: string): CatalogEntry {
    const kept = this.byName.get(name);
    if (kept !== undefined && kept.text === text) return kept.entry;
    const entry = JSON.parse(text) as CatalogEntry;
    this.keep(name, text, entry);
    return entry;
  }

  /** The entry's JSON text, as written for its row and sent on the catalog topic. */
  text(entry: CatalogEntry): string {
    let text = this.texts.get(entry);
    if (text === undefined) {
      text = JSON.stringify(entry);
      this.keep(entry.name, text, entry);
    }
    return text;
  }

  private keep(name: string, text: string, entry: CatalogEntry): void {
    this.texts.set(entry, text);
    const before = this.byName.get(name);
    if (before !== undefined) {
      this.byName.delete(name);
      this.chars -= before.text.length;
    }
    // A text beyond the whole bound is not kept by name (the WeakMap still spares its second stringify).
    if (text.length > this.maxChars) return;
    this.byName.set(name, { text, entry });
    this.chars += text.length;
    while (this.chars > this.maxChars) {
      const [oldest, kept] = this.byName.entries().next().value as [string, { text: string }];
      this.byName.delete(oldest);
      this.chars -= kept.text.length;
    }
  }
}
