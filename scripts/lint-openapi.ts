// Lints the OpenAPI document with Spectral's OAS ruleset; any error fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from './openapi.ts';

const dir = path.resolve('.tmp');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, 'openapi.json');
fs.writeFileSync(file, JSON.stringify(await openApiDocument(), null, 2));
fs.writeFileSync(path.join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
execFileSync(
  process.execPath,
  [path.resolve('node_modules/@stoplight/spectral-cli/dist/index.js'), 'lint', file, '--ruleset', path.join(dir, '.spectral.yaml'), '--fail-severity', 'error'],
  { stdio: 'inherit' },
);
