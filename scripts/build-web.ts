// Builds the portal front end (web/ → web/dist) with Vite, unless dist is newer than every source.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../web');
const dist = path.join(root, 'dist', 'index.html');

function newest(dir: string): number {
  let t = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

if (fs.existsSync(dist) && fs.statSync(dist).mtimeMs > newest(root) && !process.argv.includes('--force')) {
  console.log('portal: web/dist is up to date');
} else {
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
  console.log('portal: built web/dist');
}
