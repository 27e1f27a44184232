// Compiles src/ (with the generated files) to dist/: ES modules and declarations, as published.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// TypeScript 5 (this package's dev dependency; openapi-typescript needs it too) emits the JS and .d.ts.
const tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
console.log(`sdk: built ${path.join(root, 'dist')}`);
