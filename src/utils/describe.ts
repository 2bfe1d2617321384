/**
 * A message for anything thrown. Never throws itself: a thrown value may be an object whose
 * `toString` is broken or missing.
 */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) return String(value.message);
    return String(value);
  } catch {
    return "Unknown error";
  }
}
