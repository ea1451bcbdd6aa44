/**
 * Letters that look like Latin ones but are not, mapped to the Latin letter a reader sees.
 * NFKC already folds fullwidth, mathematical, circled and superscript letters; this table
 * covers what NFKC leaves alone: Cyrillic, Greek, Armenian, small capitals and a few Latin
 * variants. Deliberately compact: the common look-alikes of a-z, not Unicode's whole list.
 */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  // Cyrillic capitals, then small letters (н, к, м, т, в are small-capital look-alikes).
  ['АВЕЅІЈКМНОРСТХУԀԌԚԜӀЬ', 'ABESIJKMHOPCTXYDGQWIb'],
  ['авеѕіјкмнорстхуԁһԛԝӏьп', 'abesijkmhopctxydhqwlbn'],
  // Greek capitals and small letters.
  ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', 'ABEZHIKMNOPTYX'],
  ['αγεηικνορτυχω', 'ayenikvoptuxw'],
  // Armenian.
  ['օսոհցզ', 'ounhgq'],
  // Latin small capitals and variants.
  ['ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ', 'abcdefghijklmnoprstuvwyz'],
  ['ıȷɡɑɩʋ', 'ijgaiu'],
];

function buildTable(): ReadonlyMap<string, string> {
  const table = new Map<string, string>();
  for (const [from, to] of PAIRS) {
    const source = [...from];
    const target = [...to];
    if (source.length !== target.length) throw new Error(`confusable row ${from} is misaligned`);
    source.forEach((letter, index) => table.set(letter, target[index]));
  }
  // Regional indicator symbols 🇦-🇿 render as boxed capitals outside flag pairs.
  for (let offset = 0; offset < 26; offset += 1) {
    table.set(String.fromCodePoint(0x1f1e6 + offset), String.fromCharCode(0x61 + offset));
  }
  return table;
}

export const CONFUSABLES: ReadonlyMap<string, string> = buildTable();

const ANY_CONFUSABLE = new RegExp([...CONFUSABLES.keys()].join('|'), 'gu');

/** Replaces every look-alike letter with its Latin twin; other characters are kept. */
export function foldConfusables(text: string): string {
  return text.replace(ANY_CONFUSABLE, (character) => CONFUSABLES.get(character) ?? character);
}

export function isConfusable(character: string): boolean {
  return CONFUSABLES.has(character);
}
