// What every target process shares: the port it is told, the line that says it is ready, and a
// clean exit on SIGTERM/SIGINT (so `--cpu-prof` gets to write its profile).
export function targetPort(): number {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("Set PORT to the port to listen on");
  return port;
}

export const HOST = "127.0.0.1";

/** Tells the driver the target listens. One JSON line on stdout, prefixed so logs cannot be mistaken for it. */
export function announceReady(info: Record<string, unknown> = {}): void {
  process.stdout.write(`READY ${JSON.stringify({ pid: process.pid, ...info })}\n`);
}

export function exitOnSignal(close?: () => unknown): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, async () => {
      try {
        await close?.();
      } finally {
        process.exit(0);
      }
    });
  }
}
