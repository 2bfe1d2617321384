// A finished task's stored form: one string, "<version> <owner> <tasks/get JSON>", which Redis keeps
// in a single allocation (a hash would become a hashtable, its JSON being longer than the 64 bytes a
// compact hash allows per value). The JSON's opening up to the task id is the same for every task and
// the id is in the key, so the string keeps only the rest.
import { getTaskResultJsonHead as headOf } from "../../protocol/wire.ts";

/** The JSON as stored (after the version and owner, which the apply script puts in front). */
export function storedFinalJson(id: string, json: string): string {
  const head = headOf(id);
  // Anything else (never produced today) is kept whole; it starts with "{", the shortened form with ",".
  return json.startsWith(head) && json[head.length] === "," ? json.slice(head.length) : json;
}

/** A finished task's string, back as its version, owner and full tasks/get JSON. */
export function parseFinished(id: string, raw: string): { version: number; owner: string; final: string } {
  const a = raw.indexOf(" ");
  const b = raw.indexOf(" ", a + 1);
  const json = raw.slice(b + 1);
  return { version: Number(raw.slice(0, a)), owner: raw.slice(a + 1, b), final: json.startsWith(",") ? headOf(id) + json : json };
}
