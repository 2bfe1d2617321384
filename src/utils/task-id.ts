// Task ids: random v4 UUIDs, built as one flat string.
//
// `crypto.randomUUID()` in Node returns a rope of some twenty concatenated pieces, and a Map key
// keeps the whole rope: about 450 bytes per id instead of about 60. A store retaining a million
// tasks would spend most of its heap on id ropes, so the id is written as bytes and decoded once.
const HEX = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const DASH = "-".charCodeAt(0);
const IDS_PER_REFILL = 256;

const random = new Uint8Array(16 * IDS_PER_REFILL);
let next = random.length;
const text = new Uint8Array(36);
const decoder = new TextDecoder("latin1");

export function newTaskId(): string {
  if (next === random.length) {
    crypto.getRandomValues(random);
    next = 0;
  }
  // RFC 9562 version 4: the version nibble is 4, the variant bits are 10.
  random[next + 6] = (random[next + 6]! & 0x0f) | 0x40;
  random[next + 8] = (random[next + 8]! & 0x3f) | 0x80;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = DASH;
    const byte = random[next + i]!;
    text[at++] = HEX[byte >> 4]!;
    text[at++] = HEX[byte & 15]!;
  }
  next += 16;
  return decoder.decode(text);
}
