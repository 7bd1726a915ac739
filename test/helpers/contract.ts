import crypto from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { appFrames } from '#src/app.frames.js';
import { asyncApiDocument } from '#src/realtime/asyncapi.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, any>;

/** One answer as a client saw it. */
export interface Answer {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** the body's bytes, or null when too large to keep */
  body: Buffer | null;
}

/** Bodies larger than this are not kept for checking (their status and type still are). */
const MAX_KEPT_BODY = 4 * 1024 * 1024;

interface Route {
  pattern: RegExp;
  /** literal paths first: /api/admin/backups/info before /api/admin/backups/{name} */
  params: number;
  item: Json;
}

/**
 * Checks answers against one OpenAPI document: the status is documented for the operation, the
 * content type is one the response names (or no body where it names none), required headers
 * are there, and a JSON body validates against the response schema. Compiled once per document.
 */
export class ContractValidator {
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components ?? {} });
    this.routes = Object.entries(document.paths as Json)
      .map(([path, item]) => {
        const params = (path.match(/\{/g) ?? []).length;
        const source = path
          .split(/(\{[^}]+\})/)
          .map((part) =>
            part === '{path}'
              ? '.+'
              : part.startsWith('{')
                ? '[^/]+'
                : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
          )
          .join('');
        return { pattern: new RegExp(`^${source}$`), params, item: item as Json };
      })
      .sort((a, b) => a.params - b.params);
  }

  private operation(method: string, path: string): Json | undefined {
    const route = this.routes.find((r) => r.pattern.test(path));
    if (!route) return undefined;
    const lower = method.toLowerCase();
    // Fastify answers HEAD for every GET route
    return route.item[lower] ?? (lower === 'head' ? route.item.get : undefined);
  }

  private schemaCheck(pointer: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile(rebased(schema));
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** What is wrong with the answer; empty when it is as documented (or not a documented path). */
  check(answer: Answer): string[] {
    const path = answer.url.split('?')[0]!;
    const where = `${answer.method} ${path} → ${answer.status}`;
    const op = this.operation(answer.method, path);
    if (!op) return [];
    const responses = op.responses as Json;
    const response = (responses[answer.status] ??
      responses[`${String(answer.status)[0]}XX`] ??
      responses.default) as Json | undefined;
    if (!response) return [`${where}: status not documented for ${op.operationId}`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      if (header.required && answer.headers[name.toLowerCase()] === undefined) {
        problems.push(`${where}: header ${name} missing`);
      }
    }
    const hasBody = answer.method !== 'HEAD' && (answer.body === null || answer.body.length > 0);
    const content = response.content as Json | undefined;
    if (!hasBody) return problems;
    if (!content) return [...problems, `${where}: a body where the document names none`];
    const type = String(answer.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const media =
      content[type] ?? content[`${type.split('/')[0]}/*`] ?? (content['*/*'] as Json | undefined);
    if (!media) {
      return [...problems, `${where}: content type "${type}" not in ${Object.keys(content)}`];
    }
    if (answer.body === null || !/json/.test(type) || !media.schema) return problems;
    let text: string;
    let value: unknown;
    try {
      text = decoded(answer.body, answer.headers['content-encoding']).toString('utf8');
      value = JSON.parse(text);
    } catch {
      return [...problems, `${where}: body is not JSON`];
    }
    const status = responses[answer.status] ? answer.status : 'default';
    const validate = this.schemaCheck(`${op.operationId} ${status} ${type}`, media.schema);
    if (!validate(value)) {
      const first = validate.errors?.[0];
      problems.push(
        `${where}: body ${first?.instancePath || '/'} ${first?.message} ` +
          `(${JSON.stringify(first?.params)}): ${text.slice(0, 300)}`,
      );
    }
    return problems;
  }
}

/** The body without its Content-Encoding. */
function decoded(body: Buffer, encoding: unknown): Buffer {
  switch (String(encoding ?? '').toLowerCase()) {
    case 'gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    default:
      return body;
  }
}

/** A schema whose `#/components/...` references resolve in the added document. */
function rebased(schema: Json): Json {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'),
  ) as Json;
}

const validators = new Map<string, ContractValidator>();

/** The validator of the document this app serves, compiled once per distinct document. */
function validatorFor(app: FastifyInstance): ContractValidator {
  const document = app.swagger() as Json;
  const key = crypto.createHash('sha256').update(JSON.stringify(document)).digest('hex');
  let validator = validators.get(key);
  if (!validator) {
    validator = new ContractValidator(structuredClone(document));
    validators.set(key, validator);
  }
  return validator;
}

function fromInject(method: string, url: string, res: LightMyRequestResponse): Answer {
  return {
    method: method.toUpperCase(),
    url,
    status: res.statusCode,
    headers: res.headers,
    body: res.rawPayload,
  };
}

/** The method and URL of inject's options (a URL string, or an object). */
function requestOf(options: unknown): { method: string; url: string } {
  if (typeof options === 'string') return { method: 'GET', url: options };
  const o = options as { method?: string; url?: string | { pathname?: string }; path?: string };
  const url = typeof o.url === 'string' ? o.url : (o.url?.pathname ?? o.path ?? '/');
  return { method: o.method ?? 'GET', url };
}

/** Keeps what a real port's response writes, to check it when it ends. */
function recordResponse(
  req: IncomingMessage,
  res: ServerResponse,
  done: (answer: Answer) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk as string, (typeof encoding === 'string' ? encoding : 'utf8') as never);
    size += buffer.length;
    if (size <= MAX_KEPT_BODY) chunks.push(buffer);
  };
  // Fastify passes its headers to writeHead, where getHeaders() does not see them
  const headers: OutgoingHttpHeaders = {};
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((...args: unknown[]) => {
    const given = args.find((a) => a && typeof a === 'object' && !Array.isArray(a));
    for (const [name, value] of Object.entries((given ?? {}) as OutgoingHttpHeaders)) {
      headers[name.toLowerCase()] = value;
    }
    return (writeHead as (...a: unknown[]) => ServerResponse)(...args);
  }) as typeof res.writeHead;
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse)(chunk, ...rest);
  }) as typeof res.end;
  res.once('finish', () =>
    done({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      status: res.statusCode,
      headers: { ...res.getHeaders(), ...headers } as Answer['headers'],
      body: size <= MAX_KEPT_BODY ? Buffer.concat(chunks) : null,
    }),
  );
}

/**
 * Makes every answer the app gives in a test, through app.inject or its listening port, checked
 * against the document it serves: an inject answer that differs rejects the inject (so the test
 * that made it fails), a port answer is kept in `violations` and reported when the app closes.
 */
export function checkAnswersAgainstDocument(app: FastifyInstance): {
  violations: string[];
  /** throws when an answer through the port differed from the document */
  assertKept(): void;
} {
  const validator = validatorFor(app);
  const violations: string[] = [];
  const inject = app.inject.bind(app) as (...args: unknown[]) => unknown;
  (app as { inject: unknown }).inject = (...args: unknown[]) => {
    // the chained form (app.inject().get(...)) and the callback form are left as they are
    if (args.length !== 1) return inject(...args);
    const { method, url } = requestOf(args[0]);
    return (inject(args[0]) as Promise<LightMyRequestResponse>).then((res) => {
      const problems = validator.check(fromInject(method, url, res));
      if (problems.length > 0) {
        throw new Error(`the answer differs from /api/openapi.json:\n${problems.join('\n')}`);
      }
      return res;
    });
  };
  app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    // socket upgrades never come here; the WebSocket frames have their own check (ws.ts)
    recordResponse(req, res, (answer) => violations.push(...validator.check(answer)));
  });
  return {
    violations,
    assertKept() {
      if (violations.length === 0) return;
      throw new Error(`answers differed from /api/openapi.json:\n${violations.join('\n')}`);
    },
  };
}

let serverFrames: Map<string, ValidateFunction> | undefined;

/**
 * What is wrong with a frame the server sent, against the AsyncAPI document it serves (the
 * payload of the message of its `type`); null when it is as documented.
 */
export function frameProblem(frame: { type?: unknown; [key: string]: unknown }): string | null {
  if (!serverFrames) {
    const document = asyncApiDocument(appFrames) as Json;
    const ajv = new Ajv({ strict: false, allErrors: false });
    serverFrames = new Map();
    for (const operation of Object.values(document.operations as Json)) {
      if (operation.action !== 'send') continue;
      for (const ref of operation.messages as { $ref: string }[]) {
        const type = ref.$ref.split('/').pop()!;
        serverFrames.set(type, ajv.compile(document.components.messages[type].payload));
      }
    }
  }
  const validate = serverFrames.get(String(frame.type));
  const text = JSON.stringify(frame).slice(0, 300);
  if (!validate) return `frame of a type /api/asyncapi.json does not name: ${text}`;
  if (validate(frame)) return null;
  const first = validate.errors?.[0];
  return `frame differs from /api/asyncapi.json: ${first?.instancePath || '/'} ${first?.message} (${JSON.stringify(first?.params)}): ${text}`;
}
