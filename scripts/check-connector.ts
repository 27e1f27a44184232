// CI check of the reference warehouse connector: `tsc --strict` on its own project (which also
// type-checks the SDK's published .d.ts), then no `any` and no casts anywhere in its source
// (`as`, `<T>x`, non-null `!`), found by walking the TypeScript syntax tree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const project = path.join(root, 'examples/warehouse-connector');

execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['--noEmit', '--strict', '-p', project], { stdio: 'inherit' });

// The syntax-tree API is TypeScript 5's (the SDK workspace's dev dependency; the root's TypeScript 7 has none yet).
const ts: typeof import('../packages/sdk/node_modules/typescript/lib/typescript.js') = createRequire(path.join(root, 'packages/sdk/package.json'))(
  'typescript',
);

const findings: string[] = [];
function walk(dir: string) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (entry.name.endsWith('.ts')) scan(file);
  }
}
function scan(file: string) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const report = (node: import('../packages/sdk/node_modules/typescript/lib/typescript.js').Node, what: string) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push(`${path.relative(root, file)}:${line + 1}:${character + 1} ${what}: ${node.getText(source).slice(0, 80)}`);
  };
  const visit = (node: import('../packages/sdk/node_modules/typescript/lib/typescript.js').Node) => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) report(node, 'any');
    if (ts.isAsExpression(node)) report(node, 'cast');
    if (ts.isTypeAssertionExpression(node)) report(node, 'cast');
    if (ts.isNonNullExpression(node)) report(node, 'non-null assertion');
    ts.forEachChild(node, visit);
  };
  visit(source);
}
walk(path.join(project, 'src'));
if (findings.length) {
  console.error(`warehouse connector: ${findings.length} use(s) of any or casts:\n${findings.join('\n')}`);
  process.exit(1);
}
console.log('warehouse connector: tsc --strict passes; no any, no casts');
