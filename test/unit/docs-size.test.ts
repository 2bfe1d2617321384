// docs/ is read in minutes: its guides and reference (every markdown page under docs/ but the changelog, which
// is history) come to at most 4,500 lines. Figures and their history live in bench/, what a suite checks beside
// the suite in test/, the map of the sources in src/README.md, the conformance checklist in conformance/.
import { expect, it } from "vitest";
import { docFiles, read } from "../helpers/doc-blocks.ts";

const LIMIT = 4_500;

it(`the guides of docs/ come to at most ${LIMIT} lines`, () => {
  const guides = docFiles().filter((f) => f.startsWith("docs/") && f !== "docs/changelog.md");
  expect(guides.length).toBeGreaterThan(20);
  const lines = Object.fromEntries(guides.map((f) => [f, read(f).split("\n").length - 1]));
  const total = Object.values(lines).reduce((a, b) => a + b, 0);
  const longest = Object.entries(lines).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([f, n]) => `${f} ${n}`);
  expect(total, `docs/ guides: ${total} lines; the longest: ${longest.join(", ")}`).toBeLessThanOrEqual(LIMIT);
});
