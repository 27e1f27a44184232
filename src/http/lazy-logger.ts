// Each request's logger (req.log), made when the request first logs something. Fastify gives every
// request a pino child bound to its request_id, and making one runs the bindings through the
// redaction paths: work on every request, though most log nothing of their own (the access line is
// written through the app's logger with the request id in it: access-log.ts). Issue #14.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { levels, type Bindings, type ChildLoggerOptions, type LogFn } from 'pino';

/** Whether `logger` writes lines of `level` (none when its level is one pino does not rank, e.g. silent). */
export const logs = (logger: Pick<FastifyBaseLogger, 'level'>, level: string): boolean => levels.values[level] >= (levels.values[logger.level] ?? Infinity);

type Args = Parameters<LogFn>;

class LazyChild {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | null = null;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #made(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  // Methods on the prototype: a request's logger is one small object, no closures.
  fatal(...args: Args): void {
    if (logs(this, 'fatal')) this.#made().fatal(...args);
  }
  error(...args: Args): void {
    if (logs(this, 'error')) this.#made().error(...args);
  }
  warn(...args: Args): void {
    if (logs(this, 'warn')) this.#made().warn(...args);
  }
  info(...args: Args): void {
    if (logs(this, 'info')) this.#made().info(...args);
  }
  debug(...args: Args): void {
    if (logs(this, 'debug')) this.#made().debug(...args);
  }
  trace(...args: Args): void {
    if (logs(this, 'trace')) this.#made().trace(...args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }
}

export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyChild(logger, bindings, options) as unknown as FastifyBaseLogger;
