// The test command (`npm test`): type-check, lint (oxlint), format check (Prettier), check the import layers, lint the OpenAPI document, run the suite.
// TEST_DB=postgres runs the suite on the PostgreSQL server at TEST_DATABASE_URL
// (default postgres://postgres@127.0.0.1:5432/postgres) instead of embedded PGlite.
// SKIP_STATIC_CHECKS=1 leaves out the checks that do not depend on the database (type-check, lint,
// format, layers, connector, OpenAPI lint): .ci/run sets it on its second pass, which only changes
// the database, so the checks run once per CI run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const bin = (name: string) => path.resolve('node_modules/.bin', name);
const step = (title: string, cmd: string, args: string[]) => {
  console.log(`\n▶ ${title}`);
  execFileSync(cmd, args, { stdio: 'inherit', env: process.env });
};

// Browser tests drive Debian's Chromium; install it when missing (as root) so a fresh machine passes.
function ensureChromium() {
  if (fs.existsSync('/usr/bin/chromium')) return;
  console.log("Chromium is missing: installing Debian's chromium for the browser tests");
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (args: string[]) => execFileSync(sudo[0] ?? args[0], sudo.length ? [...sudo.slice(1), ...args] : args.slice(1), { stdio: 'inherit' });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
}

try {
  if (fs.existsSync('test/browser')) ensureChromium();
  // The SDK's types come from the app's OpenAPI document: generate and build it before anything imports it.
  step('SDK build (types generated from the OpenAPI document)', process.execPath, ['packages/sdk/scripts/generate.ts']);
  step('SDK compile to dist/', process.execPath, ['packages/sdk/scripts/build.ts']);
  step('test helper types (operator API document)', process.execPath, ['test/generate-contract-types.ts']);
  if (process.env.SKIP_STATIC_CHECKS === '1') {
    console.log('\n▶ static checks skipped (SKIP_STATIC_CHECKS=1: they ran on the first pass)');
  } else {
    step('type-check (tsc --noEmit)', bin('tsc'), ['--noEmit', '-p', '.']);
    step('lint (npm run lint: oxlint, type-aware: floating/misused promises, unused code)', 'npm', ['run', '--silent', 'lint']);
    step('format check (npm run format:check: Prettier; `npm run format` rewrites)', 'npm', ['run', '--silent', 'format:check']);
    step('layer check (no backward imports, no cycles beyond scripts/layer-baseline.json)', process.execPath, ['scripts/check-layers.ts']);
    step('warehouse connector: tsc --strict, no any, no casts', process.execPath, ['scripts/check-connector.ts']);
    step('OpenAPI lint (Spectral oas + Redocly recommended, both documents)', process.execPath, ['scripts/lint-openapi.ts']);
  }
  if (fs.existsSync('web/package.json') || fs.existsSync('web/vite.config.ts')) step('portal build', process.execPath, ['scripts/build-web.ts']);
  step(`tests on ${process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite'}`, bin('vitest'), ['run', ...process.argv.slice(2)]);
} catch {
  process.exit(1);
}
