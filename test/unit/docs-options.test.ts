// docs/tasks.md's table of mcpTasks() options is one table, and it names every option the type has.
import ts from "typescript";
import { expect, it } from "vitest";
import { read } from "../helpers/doc-blocks.ts";

/** The member names of an interface in a source file. */
function members(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest);
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!found) throw new Error(`${name} is not in ${file}`);
  return found.members.map((m) => (m.name as ts.Identifier | ts.StringLiteral).text);
}

it("docs/tasks.md lists every McpTasksOptions member in one table", () => {
  const page = read("docs/tasks.md");
  const after = page.slice(page.indexOf("Its options, all optional:"));
  const table = /\n((?:\|[^\n]*\n)+)/.exec(after)![1]!;
  const rows = table.split("\n").slice(2).filter(Boolean).map((row) => /^\| `(\w+)` \|/.exec(row)?.[1]);
  const options = members("src/tasks/plugin.ts", "McpTasksOptions");
  expect(rows.sort()).toEqual(options.sort());
  // Nothing after the table's last row is a row cut off from it by a paragraph.
  expect(after.slice(after.indexOf(table) + table.length).split("\n\n## ")[0]).not.toMatch(/^\| `/m);
});
