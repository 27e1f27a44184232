// One connector per data directory: a lock file holding the owner's pid. A lock left by a
// process that no longer runs (a crash) is taken over.
import fs from 'node:fs';
import path from 'node:path';

export interface Lock {
  release(): void;
}

export function acquireLock(dataDir: string): Lock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'connector.lock');
  for (let tries = 0; tries < 2; tries++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return { release: () => fs.rmSync(file, { force: true }) };
    } catch (err) {
      if (!(err instanceof Error) || !('code' in err) || err.code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(`${dataDir} is in use by the connector with pid ${owner}; stop it first (or delete ${file} if that process is gone)`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
