// The README's examples compile against the built SDK as published (dist/), strict: an example
// that no longer type-checks is a manual that lies.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The README's ```ts blocks that are whole programs (they import the SDK). */
function examples(): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((code) => code.includes("from 'merchant-integration-sdk'"));
}

/** tsc's diagnostics for `code` as an ES module of this package, as a user of the package would compile it. */
function diagnostics(code: string): string[] {
  const file = path.join(root, 'test', 'readme-example.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, code, version) : read(name, version, ...rest));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

describe('README', () => {
  it('the warehouse loop type-checks against the built SDK', () => {
    const found = examples();
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('api.getOrder({ id: event.data.object.id })');
    expect(diagnostics(found[0])).toEqual([]);
  });
});
