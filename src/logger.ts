// The process's logger: readable lines in a terminal, one JSON object per line otherwise
// (LOG_FORMAT decides). Secrets are never logged on purpose; redaction is the second fence.
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat } from './config.ts';

const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.signing_secret',
  '*.token',
];

export function createLogger(opts: { level: string; format: LogFormat }, destination?: DestinationStream): Logger {
  const options = { level: opts.level, redact: { paths: REDACT, censor: '[redacted]' } };
  if (opts.format === 'json') return destination ? pino(options, destination) : pino(options);
  const stream = pretty({
    colorize: destination ? false : Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    sync: true,
    ...(destination ? { destination } : {}),
  });
  return pino(options, stream);
}
