// The operator CLI (`npm run admin -- <command>`): onboarding and credential recovery from a shell,
// through the same schemas and services as the operator API, on PGlite (DATA_DIR) or PostgreSQL
// (DATABASE_URL). Secrets and generated passwords are printed once, here, and never logged.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { TSchema } from 'typebox';
import { ConfigError, loadConfig } from '../config.ts';
import { DataDirInUse, openDatabase, withoutQueryTimeout, type Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import type { Ctx } from '../http/context.ts';
import { AppError } from '../http/errors.ts';
import { SCOPES, WAREHOUSE_PRESET } from '../http/scopes.ts';
import { validationProblem, validatorCompiler } from '../http/validation.ts';
import { createApiKey } from '../modules/api-keys/service.ts';
import { assertMerchant, createMerchant, createPortalUser, listMerchants, resetPortalPassword } from '../modules/merchants/service.ts';
import { createNamed } from '../modules/reference/service.ts';
import { ApiKeyBody } from '../modules/api-keys/schemas.ts';
import { MerchantBody, PortalUserBody } from '../modules/merchants/schemas.ts';
import { NamedBody } from '../platform/merchants.ts';
import { checkPostgres } from '../startup.ts';

const HELP = `Operator commands (npm run admin -- <command> [options]):

  list-merchants                                      merchants with their locations and portal users
  create-merchant --name <name> [--currency USD]
  create-location --merchant <id> --name <name>
  create-user     --merchant <id> --email <email> [--password <p>]   (a password is generated when omitted)
  create-key      --merchant <id> --label <label> (--scopes a,b,… | --all | --warehouse) [--locations <id>,…]
  reset-password  --email <email> [--password <p>]    (generated when omitted; the user's sessions end)

Add --json for machine-readable output. The database is the server's: DATABASE_URL, or DATA_DIR
(embedded; stop the server first, it allows one process at a time).`;

class UsageError extends Error {}

const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;
const OPTIONS = {
  ...{ name: text, currency: text, merchant: text, email: text, password: text, label: text, scopes: text, locations: text },
  ...{ all: flag, warehouse: flag, json: flag, help: flag },
} as const;

type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** The operator API's body schema, applied to the CLI's input (422 problems become lines of text). */
function validated<T>(schema: TSchema, input: Record<string, unknown>): T {
  const body = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const check = validatorCompiler({ schema, httpPart: 'body' });
  if (!check(body)) throw validationProblem({ validation: check.errors ?? [], validationContext: 'body' });
  return body as T;
}

function need(o: Options, name: keyof Options): string {
  const v = o[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required.`);
  return v;
}

const generatedPassword = () => randomBytes(12).toString('base64url');
const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

async function merchantCtx(db: Database, o: Options): Promise<Ctx> {
  const merchantId = need(o, 'merchant');
  if (!/^[0-9a-f-]{36}$/i.test(merchantId)) throw new UsageError(`--merchant must be a merchant id (a UUID; see list-merchants), not "${merchantId}".`);
  await assertMerchant(db, merchantId);
  return { db, merchantId, apiKeyId: null, locationIds: null };
}

type Result = { json: unknown; text: string };

const COMMANDS: Record<string, (db: Database, o: Options) => Promise<Result>> = {
  async 'list-merchants'(db) {
    const merchants = await listMerchants(db);
    const text = merchants.length
      ? merchants
          .map((m) =>
            [
              `${m.id}  ${m.name} (${m.currency})`,
              ...m.locations.map((l) => `    location ${l.id}  ${l.name}`),
              ...m.portal_users.map((e) => `    portal user ${e}`),
            ].join('\n'),
          )
          .join('\n')
      : 'No merchants yet: npm run admin -- create-merchant --name "…"';
    return { json: merchants, text };
  },

  async 'create-merchant'(db, o) {
    const m = await createMerchant(db, validated(MerchantBody, { name: need(o, 'name'), currency: o.currency }));
    return { json: m, text: `Merchant ${m.id}  ${m.name} (${m.currency})` };
  },

  async 'create-location'(db, o) {
    const ctx = await merchantCtx(db, o);
    const body = validated<{ name: string }>(NamedBody, { name: need(o, 'name') });
    const l = await createNamed(ctx, 'locations', body.name);
    return { json: l, text: `Location ${l.id}  ${l.name}` };
  },

  async 'create-user'(db, o) {
    const ctx = await merchantCtx(db, o);
    const password = o.password ?? generatedPassword();
    const u = await createPortalUser(ctx, validated(PortalUserBody, { email: need(o, 'email'), password }));
    return {
      json: { ...u, ...(o.password ? {} : { password }) },
      text: `Portal user ${u.id}  ${u.email}${o.password ? '' : `\nPassword (shown once): ${password}`}`,
    };
  },

  async 'create-key'(db, o) {
    const ctx = await merchantCtx(db, o);
    const chosen = [o.scopes !== undefined, Boolean(o.all), Boolean(o.warehouse)].filter(Boolean).length;
    if (chosen !== 1) throw new UsageError('Give exactly one of --scopes a,b,…, --all or --warehouse.');
    const scopes = o.all ? [...SCOPES] : o.warehouse ? [...WAREHOUSE_PRESET] : (list(o.scopes) ?? []);
    const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length) throw new UsageError(`Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; the scopes are: ${SCOPES.join(', ')}.`);
    const k = await createApiKey(ctx, validated(ApiKeyBody, { label: need(o, 'label'), scopes, location_ids: list(o.locations) }));
    return {
      json: k,
      text: `API key ${k.id}  "${k.label}"  scopes ${k.scopes.join(' ')}${k.location_ids ? `  locations ${k.location_ids.join(' ')}` : ''}\nSecret (shown once; only its hash is stored): ${k.secret}`,
    };
  },

  async 'reset-password'(db, o) {
    const password = o.password ?? generatedPassword();
    const body = validated<{ email: string; password: string }>(PortalUserBody, { email: need(o, 'email'), password });
    const r = await resetPortalPassword(db, body);
    return {
      json: { ...r, ...(o.password ? {} : { password }) },
      text: `Password of ${r.email} reset; ${r.sessions_ended} open session(s) ended.${o.password ? '' : `\nNew password (shown once): ${password}`}`,
    };
  },
};

function explain(err: unknown): string {
  if (err instanceof AppError && err.errors?.length) {
    // "/email" → "--email"; "/location_ids/1" → "--locations (item 2)".
    const option = (p: string) => {
      const [field, index] = p.replace(/^\//, '').split('/');
      const name = field === 'location_ids' ? 'locations' : field;
      return `--${name}${index !== undefined ? ` (item ${Number(index) + 1})` : ''}`;
    };
    return err.errors.map((e) => `${option(e.path)}: ${e.message}`).join('\n');
  }
  return (err as Error).message;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const [command, ...extra] = parsed.positionals;
  if (!command || command === 'help' || parsed.values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : null;
  if (!run || extra.length) {
    process.stderr.write(`${run ? `Unexpected argument "${extra[0]}".` : `Unknown command "${command}".`}\n\n${HELP}\n`);
    return 2;
  }

  const config = loadConfig();
  if (config.databaseUrl) await checkPostgres(config.databaseUrl);
  let handle;
  try {
    handle = await openDatabase(config);
  } catch (err) {
    if (err instanceof DataDirInUse) {
      throw new ConfigError(
        `The server (process ${err.owner}) is using DATA_DIR ${path.resolve(config.dataDir)}, and the embedded database allows one process at a time: ` +
          'stop the server, run this command, then start the server again (or, while it runs, use the operator API with PLATFORM_ADMIN_TOKEN).',
      );
    }
    throw err;
  }
  try {
    await withoutQueryTimeout(handle, migrate);
    const result = await run(handle.db, parsed.values);
    process.stdout.write(`${parsed.values.json ? JSON.stringify(result.json, null, 2) : result.text}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${HELP}\n`);
      return 2;
    }
    throw err;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${explain(err)}\n`);
    process.exit(1);
  },
);
