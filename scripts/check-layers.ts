// Layer check (`npm run check:layers`, part of `npm test`): reads the import graph of src/ and
// web/src/ from the import statements and fails on
//   (a) an import from a lower layer to a higher one (LAYERS below, lowest first), and
//   (b) any import cycle: between files, and between folders (src/modules/<name>, src/<folder>).
// Every `import … from`, `export … from`, side-effect `import '…'` and `import('…')` of a relative
// path counts, `import type` too: a type from a higher layer is still a dependency on it.
// Test files (*.test.ts) sit above everything and are not part of the graph.
//
// scripts/layer-baseline.json lists the violations the tree had when the check was added. The check
// fails on a violation not in the baseline AND on a baseline entry that no longer occurs: the list only
// shrinks, and whoever removes a violation deletes its line. A cycle is recorded as the import edges
// that lie on it (an edge whose two ends are in the same strongly connected component), so breaking
// one import of a circle removes exactly the entries that stop being circular.
// `--write-baseline` rewrites the file from the tree (only for shrinking it; review the diff).
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const baselineFile = path.join(root, 'scripts/layer-baseline.json');

// Lowest first, as in the README's architecture map. A file may import from its own layer or a lower one. The first matching rule wins.
type Rule = { layer: number; name: string; match: (file: string) => boolean };
const under = (dir: string) => (file: string) => file.startsWith(dir);
const is =
  (...files: string[]) =>
  (file: string) =>
    files.includes(file);
const LAYERS: Rule[] = [
  { layer: 1, name: 'foundation (config, logger, metrics)', match: is('src/config.ts', 'src/logger.ts', 'src/metrics.ts') },
  // The demo seed is application code (it calls the services): it belongs in src/seed/, not db/.
  { layer: 2, name: 'db', match: under('src/db/') },
  // The retention job imports only config, db and metrics; main.ts starts it with the worker role.
  { layer: 3, name: 'maintenance', match: under('src/maintenance/') },
  { layer: 4, name: 'http', match: under('src/http/') },
  { layer: 5, name: 'events', match: under('src/events/') },
  { layer: 6, name: 'modules', match: under('src/modules/') },
  { layer: 7, name: 'platform, portal, seed', match: (f) => ['src/platform/', 'src/portal/', 'src/seed/'].some((d) => f.startsWith(d)) },
  { layer: 8, name: 'openapi, app', match: (f) => f.startsWith('src/openapi/') || f === 'src/app.ts' },
  { layer: 9, name: 'entry points (main, startup, cli)', match: (f) => ['src/main.ts', 'src/startup.ts'].includes(f) || f.startsWith('src/cli/') },
  // The portal front end: the API client, then what pages share (ui.tsx, shared.tsx, …), then pages,
  // then the shell, then the mount.
  { layer: 10, name: 'web client (api)', match: is('web/src/api.ts', 'web/src/env.d.ts') },
  { layer: 11, name: 'web shared widgets (ui, shared, …)', match: (f) => /^web\/src\/[a-z][\w-]*\.tsx?$/.test(f) && f !== 'web/src/main.tsx' },
  { layer: 12, name: 'web pages', match: (f) => /^web\/src\/[A-Za-z]+Page\.tsx$/.test(f) },
  { layer: 13, name: 'web shell (App)', match: is('web/src/App.tsx') },
  { layer: 14, name: 'web mount (main)', match: is('web/src/main.tsx') },
];
const SOURCE_DIRS = ['src', 'web/src'];

function layerOf(file: string): Rule | undefined {
  return LAYERS.find((rule) => rule.match(file));
}

// The unit of a folder-level cycle: one module folder, one top-level folder, or a top-level file
// (the portal front end is one flat folder: its file cycles are the ones that matter).
function folderOf(file: string): string {
  if (file.startsWith('web/')) return 'web/src';
  const parts = file.split('/');
  if (parts[0] === 'src' && parts[1] === 'modules' && parts.length > 3) return parts.slice(0, 3).join('/');
  if (parts[0] === 'src' && parts.length > 2) return parts.slice(0, 2).join('/');
  return file;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      const full = path.join(abs, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  if (fs.existsSync(path.join(root, dir))) walk(path.join(root, dir));
  return out;
}

// Import specifiers of one file. Statements start a line (so a commented-out import does not count);
// `[^'";]*?` lets a named-import list span lines.
const STATIC_IMPORT = /^[ \t]*(import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s*)?['"]([^'"\n]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;
type Import = { specifier: string; typeOnly: boolean };
function importsOf(text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(STATIC_IMPORT)) found.push({ specifier: m[3]!, typeOnly: Boolean(m[2]) });
  for (const m of text.matchAll(DYNAMIC_IMPORT)) found.push({ specifier: m[1]!, typeOnly: false });
  return found;
}

function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined; // a package
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, `${target}/index.ts`]) {
    if (/\.tsx?$/.test(candidate) && fs.existsSync(path.join(root, candidate))) return candidate;
  }
  return target; // a stylesheet or a file outside the sources: kept for the "leaves the tree" rule below
}

type Edge = { from: string; to: string; typeOnly: boolean };
const files = SOURCE_DIRS.flatMap(listSources).sort();
const edges: Edge[] = [];
const problems: string[] = []; // not baselined: fix them
for (const file of files) {
  if (!layerOf(file)) problems.push(`${file}: in no layer (add it to LAYERS in scripts/check-layers.ts and to the README's architecture map)`);
  const seen = new Set<string>();
  for (const { specifier, typeOnly } of importsOf(fs.readFileSync(path.join(root, file), 'utf8'))) {
    const to = resolve(file, specifier);
    if (!to || !/\.tsx?$/.test(to)) continue;
    // The portal front end shares the backend's response types, never its code.
    if (file.startsWith('web/') && to.startsWith('src/')) {
      if (!typeOnly) problems.push(`${file} -> ${to}: the front end may import only types from the backend (import type)`);
      continue;
    }
    if (!files.includes(to)) {
      if (!to.endsWith('.test.ts')) problems.push(`${file} -> ${to}: imports a file outside src/ and web/src/ (or one that does not exist)`);
      continue;
    }
    const key = `${file} -> ${to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({ from: file, to, typeOnly });
  }
}

// (a) backward imports
const backward = edges.filter((e) => (layerOf(e.to)?.layer ?? 0) > (layerOf(e.from)?.layer ?? 0)).map((e) => `${e.from} -> ${e.to}`);

// (b) cycles: Tarjan's strongly connected components; an edge inside a component lies on a cycle.
function components(nodes: string[], pairs: [string, string][]): string[][] {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const [a, b] of pairs) next.get(a)!.push(b);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
function cycleEdges(pairs: [string, string][], groups: string[][]): string[] {
  const groupOf = new Map<string, number>();
  groups.forEach((g, i) => g.forEach((n) => groupOf.set(n, i)));
  return pairs.filter(([a, b]) => groupOf.has(a) && groupOf.get(a) === groupOf.get(b)).map(([a, b]) => `${a} -> ${b}`);
}

const filePairs = edges.map((e): [string, string] => [e.from, e.to]);
const fileCycles = components(files, filePairs);
const folderPairs = [...new Set(edges.map((e) => `${folderOf(e.from)}\0${folderOf(e.to)}`))]
  .map((s) => s.split('\0') as [string, string])
  .filter(([a, b]) => a !== b);
const folders = [...new Set(files.map(folderOf))];
const folderCycles = components(folders, folderPairs);

type Violations = { backwardImports: string[]; fileCycleImports: string[]; folderCycleImports: string[] };
const current: Violations = {
  backwardImports: backward.sort(),
  fileCycleImports: cycleEdges(filePairs, fileCycles).sort(),
  folderCycleImports: cycleEdges(folderPairs, folderCycles).sort(),
};

console.log(`layer check: ${files.length} files, ${edges.length} imports`);
console.log(`  backward imports: ${current.backwardImports.length}`);
console.log(`  file cycles: ${fileCycles.length} (${fileCycles.reduce((n, g) => n + g.length, 0)} files, ${current.fileCycleImports.length} imports on them)`);
console.log(
  `  folder cycles: ${folderCycles.length} (${folderCycles.reduce((n, g) => n + g.length, 0)} folders, ${current.folderCycleImports.length} imports on them)`,
);
if (process.argv.includes('--verbose')) {
  for (const g of fileCycles) console.log(`  file cycle: ${g.join(', ')}`);
  for (const g of folderCycles) console.log(`  folder cycle: ${g.join(', ')}`);
}

if (process.argv.includes('--write-baseline')) {
  fs.writeFileSync(
    baselineFile,
    JSON.stringify(
      {
        note: 'Import-graph violations still to remove (scripts/check-layers.ts). Only delete entries; never add.',
        ...current,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`wrote ${path.relative(root, baselineFile)}`);
}

const baseline: Partial<Violations> = fs.existsSync(baselineFile) ? JSON.parse(fs.readFileSync(baselineFile, 'utf8')) : {};
const labels: Record<keyof Violations, string> = {
  backwardImports: 'backward import (lower layer imports a higher one)',
  fileCycleImports: 'import on a cycle between files',
  folderCycleImports: 'import on a cycle between folders',
};
for (const kind of Object.keys(labels) as (keyof Violations)[]) {
  const allowed = new Set(baseline[kind] ?? []);
  const now = new Set(current[kind]);
  for (const v of now) if (!allowed.has(v)) problems.push(`${labels[kind]}, not in the baseline: ${v}`);
  for (const v of allowed) if (!now.has(v)) problems.push(`fixed, delete it from scripts/layer-baseline.json (${kind}): ${v}`);
}
const baselined = Object.values(current).reduce((n, list) => n + list.length, 0);
if (problems.length) {
  console.error(`\nlayer check failed (${problems.length}):`);
  for (const p of problems) console.error(`  ${p}`);
  console.error('\nLayers, lowest first (a file may import its own layer or lower ones):');
  for (const rule of LAYERS) console.error(`  ${rule.layer}: ${rule.name}`);
  process.exit(1);
}
console.log(baselined ? `ok: only the ${baselined} baselined entries remain (scripts/layer-baseline.json)` : 'ok: no backward imports, no cycles');
