import { vi } from "vitest";

/** Retries `check` until it passes (progress crosses an await, and maybe an instance and Redis). */
export const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 5000, interval: 5 });
