import type { RouteAccess } from './access.js';

/**
 * What the route schemas alone cannot say, added to the OpenAPI document as it is built: the
 * statuses every route of a kind can answer (a body that is too large, a refused sign-in, an
 * overloaded server), the headers that come with them, security read from each route's guards,
 * an operationId for every operation, and named path parameters in place of Fastify's `*`.
 * Route schemas name their own successes and the errors of their own rules.
 */

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  parameters?: Json[];
  responses: Record<string, Json>;
  security?: Record<string, string[]>[];
  requestBody?: Json;
}
export interface OpenApiObject extends Json {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Json>; securitySchemes?: Json } & Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The description of each status, for responses whose route said none. */
const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No content',
  206: 'Partial content: the requested byte range',
  302: 'Redirect (Location)',
  304: 'Not modified: the ETag given in If-None-Match is current',
  400: 'validation_failed: malformed or invalid input (the message names the field)',
  401: 'unauthorized: no token, or a refused one',
  403: 'forbidden: the caller is not an admin',
  404: 'not_found: no such record (or route)',
  409: 'conflict',
  410: 'full_sync_required',
  412: 'precondition_failed: If-Match names another version of the file',
  413: 'payload_too_large: a body or file over its limit',
  415: 'unsupported_format: a content type or file type this route does not take',
  416: 'The Range lies beyond the end of the file',
  422: 'inventory_full, quantity_out_of_range, shopping_list_full or analysis_failed: refused as a whole, nothing was written',
  429: 'rate_limited: wait Retry-After seconds',
  500: 'internal: a server fault (details only in the server log)',
  503:
    'unavailable (overloaded), database_unavailable or storage_unavailable: nothing was ' +
    'changed unless `applied` says "unknown"; wait Retry-After seconds',
  507: "insufficient_storage: the server's disk is full; nothing was stored",
};

const ERROR_CONTENT = {
  'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } },
};

const RETRY_AFTER = {
  description: 'seconds to wait before trying again',
  schema: { type: 'integer', minimum: 0 },
};
const WWW_AUTHENTICATE = {
  description: 'Bearer (RFC 6750), with error="invalid_token" when a token was sent and refused',
  schema: { type: 'string' },
};

/** The headers each error status carries, whatever the route. */
const STATUS_HEADERS: Record<string, Json> = {
  401: { 'WWW-Authenticate': { ...WWW_AUTHENTICATE, required: true } },
  429: { 'Retry-After': { ...RETRY_AFTER, required: true } },
  503: { 'Retry-After': RETRY_AFTER },
};

export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'the accessToken of POST /api/auth/login',
  },
  queryToken: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description:
      'the accessToken as ?token=, for a link or a client that cannot set headers (downloads)',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'the static LARDER_ADMIN_TOKEN',
  },
} as const;

function securityOf(access: RouteAccess | undefined): Record<string, string[]>[] | undefined {
  switch (access?.policy) {
    case 'user':
    case 'admin':
      return access.queryToken ? [{ bearer: [] }, { queryToken: [] }] : [{ bearer: [] }];
    case 'admin-token':
      return [{ adminToken: [] }];
    case 'public':
    case null:
    case undefined:
      return undefined;
  }
}

/** `getInventoryItemsById` for GET /api/inventory/items/{id}. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((s) => s && s !== 'api')
    .map((s) => (s.startsWith('{') ? `by-${s.slice(1, -1)}` : s))
    .flatMap((s) => s.split(/[-._]/))
    .filter(Boolean);
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return method + (name || 'Root');
}

/** Fastify's wildcard `*` as the named parameter `path` (a path below the prefix). */
function namedWildcard(path: string): string {
  return path.replace('{*}', '{path}');
}

function addResponse(op: Operation, status: number | string, response?: Json): void {
  op.responses[status] ??= response ?? {
    description: STATUS_TEXT[status] ?? 'Error',
    content: ERROR_CONTENT,
  };
}

function completeOperation(
  op: Operation,
  method: string,
  path: string,
  access: RouteAccess | undefined,
): void {
  op.operationId ??= operationIdOf(method, path);
  for (const parameter of op.parameters ?? []) {
    if (parameter.name === '*') {
      parameter.name = 'path';
      parameter.description ??= 'the path of the file below the prefix';
    }
  }
  const marked = op['x-request-body'];
  if (marked) {
    op.requestBody = marked as Json;
    delete op['x-request-body'];
  }
  // the guards are the truth: they say who may call, and whether ?token= is taken
  const security = securityOf(access);
  // an operation anybody may call says so (an empty list), rather than leaving it unsaid
  op.security = security ?? op.security ?? [];
  if (access?.queryToken && op.parameters) {
    // the queryToken scheme describes ?token=
    op.parameters = op.parameters.filter((p) => !(p.in === 'query' && p.name === 'token'));
    if (op.parameters.length === 0) delete op.parameters;
  }
  if (op.security?.length) addResponse(op, 401);
  if (access?.policy === 'admin') addResponse(op, 403);
  addResponse(op, 400);
  if (/\{[^}]+\}/.test(path)) addResponse(op, 404);
  // a body on any other method is read (and so can be too large, or of a type not taken)
  if (method !== 'get' && method !== 'head') {
    addResponse(op, 413);
    addResponse(op, 415);
    addResponse(op, 507);
  }
  addResponse(op, 500);
  addResponse(op, 503);

  for (const [status, response] of Object.entries(op.responses)) {
    if (response.description === 'Default Response') {
      response.description = STATUS_TEXT[status] ?? 'Answer';
    }
    const headers = STATUS_HEADERS[status];
    if (headers) response.headers = { ...headers, ...(response.headers as Json | undefined) };
  }
}

/** Drops what OpenAPI 3.0 has no keyword for (the server still checks it). */
function withoutJsonSchemaOnly(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(withoutJsonSchemaOnly);
  const object = node as Json;
  delete object.propertyNames;
  for (const value of Object.values(object)) withoutJsonSchemaOnly(value);
}

/** Completes the document that @fastify/swagger built from the routes (see the top of this file). */
export function completeDocument(document: OpenApiObject, routes: RouteAccess[]): OpenApiObject {
  const access = new Map(routes.map((r) => [`${r.method.toLowerCase()} ${r.url}`, r]));
  const paths: OpenApiObject['paths'] = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const named = namedWildcard(path);
    paths[named] = item;
    const fastifyUrl = path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
      name === '*' ? '*' : `:${name}`,
    );
    for (const method of METHODS) {
      if (!item[method]) continue;
      // a route of several methods (GET and HEAD) shares one object between them
      const op = (item[method] = structuredClone(item[method]));
      completeOperation(op, method, named, access.get(`${method} ${fastifyUrl}`));
    }
  }
  document.paths = paths;
  withoutJsonSchemaOnly(document.components.schemas);
  withoutJsonSchemaOnly(document.paths);
  const ids = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      const id = item[method]?.operationId;
      if (!id) continue;
      if (ids.has(id)) throw new Error(`two operations are named ${id}`);
      ids.add(id);
    }
  }
  return document;
}

/** ErrorBody as a route schema names it (the document's components come from app.addSchema). */
const ROUTE_ERROR_CONTENT = { 'application/json': { schema: { $ref: 'ErrorBody' } } };
const BINARY = { schema: { type: 'string', format: 'binary' } };
/** A response header as a route schema gives it (@fastify/swagger makes it `{description, schema}`). */
const header = (description: string) => ({ type: 'string', description });

/**
 * The answers of a file download (the file in its own content type, hence any type): 200, and
 * with `ranges` 206 for a Range, 304 for a current If-None-Match, 412 and 416.
 */
export function fileResponses(options: { ranges: boolean; attachment?: boolean; type?: string }) {
  const content = { [options.type ?? '*/*']: BINARY };
  const etag = { ETag: header('the version of the file (strong entity tag)') };
  const disposition = options.attachment
    ? { 'Content-Disposition': header('attachment, with the file name (RFC 6266)') }
    : {};
  const whole = {
    description: 'The file, in its own content type',
    headers: {
      ...etag,
      'Last-Modified': header('when the file last changed'),
      ...disposition,
      ...(options.ranges ? { 'Accept-Ranges': header('bytes') } : {}),
    },
    content,
  };
  // every file answers If-None-Match (304) and If-Match (412), with or without ranges
  const conditional = {
    304: notModified,
    412: { description: STATUS_TEXT[412], content: ROUTE_ERROR_CONTENT },
  };
  if (!options.ranges) return { 200: whole, ...conditional };
  return {
    200: whole,
    206: {
      description: STATUS_TEXT[206],
      headers: {
        ...etag,
        ...disposition,
        'Content-Range': header('bytes first-last/size'),
      },
      content,
    },
    ...conditional,
    416: {
      description: STATUS_TEXT[416],
      headers: { 'Content-Range': header('bytes */size') },
      content: ROUTE_ERROR_CONTENT,
    },
  };
}

/** 304 to a current If-None-Match: no body. */
export const notModified = {
  description: STATUS_TEXT[304],
  headers: { ETag: header('the version of the file (strong entity tag)') },
  type: 'null',
};

/** A page: `text/html`. */
export const htmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

/**
 * A request body the route reads itself (multipart, a raw stream), so Fastify must not validate
 * it: described for the document only, put in place by completeDocument.
 */
export function documentedBody(content: Record<string, Json>, description?: string) {
  return { 'x-request-body': { required: true, ...(description ? { description } : {}), content } };
}
