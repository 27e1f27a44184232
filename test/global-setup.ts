// Builds one migrated template database per run; every test file then starts from a copy of it
// (CREATE DATABASE … TEMPLATE on PostgreSQL, a dumped data directory on PGlite).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { pgliteDatabase, postgresDatabase, PGLITE_PARSERS } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dbKind: 'pglite' | 'postgres';
    dbTemplate: string;
  }
}

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export default async function setup(project: TestProject) {
  const kind = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
  const run = `${process.pid}_${randomBytes(3).toString('hex')}`;
  if (kind === 'postgres') {
    const name = `${process.env.TEST_DB_PREFIX ?? 'mia'}_tmpl_${run}`; // TEST_DB_PREFIX: engineers sharing one server keep apart
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    const handle = postgresDatabase(url.toString(), 2);
    await migrate(handle.db);
    await handle.close();
    project.provide('dbKind', 'postgres');
    project.provide('dbTemplate', name);
    return async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  }
  const pglite = new PGlite({ parsers: PGLITE_PARSERS });
  const handle = pgliteDatabase(pglite);
  await migrate(handle.db);
  const dump = await pglite.dumpDataDir('none');
  await handle.close();
  const dir = path.resolve('.tmp');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `template_${run}.tar`);
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('dbKind', 'pglite');
  project.provide('dbTemplate', file);
  return async () => fs.rmSync(file, { force: true });
}
