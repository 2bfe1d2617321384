// The seal over what a shared store keeps of a run found by name outside the process (Redis, the tasks
// Durable Object): AES-256-GCM under a key derived from the store's `secret`, bound to its task (the
// binding is the additional data, so a record moved to another task fails), so the store never holds a
// run's input or a user's answers in the clear, and a record changed there is refused rather than run.
// The form is "1." + base64 of the 12-byte nonce, the ciphertext and the tag. `sealText` seals any other
// text of a task with a run (the Redis store's live snapshot and change messages), bound to what it is.
import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync } from "node:crypto";
import type { TaskRunRecord } from "./store.ts";

const FORM = "1.";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// Nonces are cut from a pool of random bytes filled a few kilobytes at a time: each call into the random
// source costs more than the seal itself, and every task of a run found by name is sealed three times at
// least. Each nonce is still 96 fresh random bits, never handed out twice (a refill is a new buffer).
const NONCE_POOL_BYTES = NONCE_BYTES * 512;
let noncePool = Buffer.alloc(0);
let nonceAt = 0;

function freshNonce(): Buffer {
  if (nonceAt === noncePool.length) {
    noncePool = randomFillSync(Buffer.allocUnsafe(NONCE_POOL_BYTES));
    nonceAt = 0;
  }
  nonceAt += NONCE_BYTES;
  return noncePool.subarray(nonceAt - NONCE_BYTES, nonceAt);
}

export interface RunSeal {
  seal(taskKey: string, record: TaskRunRecord): string;
  /** The record, or why it was refused (never its content). */
  open(taskKey: string, sealed: string): { record: TaskRunRecord } | { refused: string };
  /** Any text of a task with a run (its snapshot, its change messages), bound to `binding`. */
  sealText(binding: string, text: string): string;
  /** The text, or why it was refused. */
  openText(binding: string, sealed: string): { text: string } | { refused: string };
}

/** Whether a stored text is sealed (JSON never starts so). */
export const isSealed = (stored: string) => stored.startsWith(FORM);

/** Seals and opens run records under `secret`; undefined without one (then runs are refused). */
export function runSeal(secret: string | undefined): RunSeal | undefined {
  if (!secret) return undefined;
  const key = Buffer.from(hkdfSync("sha256", secret, "", "h3-mcp run record", 32));
  const sealText = (binding: string, text: string) => {
    const nonce = freshNonce();
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    cipher.setAAD(Buffer.from(binding));
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return FORM + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64");
  };
  const openText = (binding: string, sealed: string): { text: string } | { refused: string } => {
    if (!isSealed(sealed)) return { refused: "its record is not in a form this server reads" };
    const bytes = Buffer.from(sealed.slice(FORM.length), "base64");
    if (bytes.length < NONCE_BYTES + TAG_BYTES) return { refused: "its record is cut short" };
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(binding));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
      return { text: plain.toString("utf8") };
    } catch {
      return { refused: "its record failed authentication (changed in the store, or sealed under another secret)" };
    }
  };
  return {
    seal: (taskKey, record) => sealText(taskKey, JSON.stringify(record)),
    open(taskKey, sealed) {
      const opened = openText(taskKey, sealed);
      return "text" in opened ? { record: JSON.parse(opened.text) as TaskRunRecord } : opened;
    },
    sealText,
    openText,
  };
}
