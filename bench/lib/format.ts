// How the bench writes: progress lines on stderr (stdout is the report), the number formats of
// its tables, and the row of the verdict table.

export const log = (line: string) => process.stderr.write(`${line}\n`);

export function fmtCount(n: number): string {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** One row of the verdict table; `met` undefined when the run did not measure it. */
export function verdictRow(name: string, met: boolean | undefined, detail: string): string {
  return `| ${name} | ${met === undefined ? "not measured" : met ? "met" : "**not met**"} | ${detail} |`;
}
