// Lints both published documents (integration and operator API) with Spectral's OAS ruleset and
// with Redocly CLI (redocly.yaml: recommended + problem details + required headers); any error fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocuments } from './openapi.ts';

const dir = path.resolve('.tmp');
fs.mkdirSync(dir, { recursive: true });
const docs = await openApiDocuments();
const files = Object.entries(docs).map(([name, doc]) => {
  const file = path.join(dir, `openapi-${name}.json`);
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
});
// oas3-operation-security-defined wants a security requirement's list to name OAuth scopes; OpenAPI
// 3.1 lets the other schemes list roles too (the integration API names each operation's key scope
// there), so the rule is off. test/foundation.test.ts checks each requirement's schemes and scope.
fs.writeFileSync(path.join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\nrules:\n  oas3-operation-security-defined: off\n');
for (const file of files) {
  console.log(`Spectral: ${path.basename(file)}`);
  execFileSync(
    process.execPath,
    [
      path.resolve('node_modules/@stoplight/spectral-cli/dist/index.js'),
      'lint',
      file,
      '--ruleset',
      path.join(dir, '.spectral.yaml'),
      '--fail-severity',
      'error',
    ],
    { stdio: 'inherit' },
  );
}
// redocly.yaml names both files (apis:), each with its rules.
execFileSync(
  process.execPath,
  [path.resolve('node_modules/@redocly/cli/bin/cli.js'), 'lint', '--config', path.resolve('redocly.yaml'), '--format', 'summary'],
  {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
