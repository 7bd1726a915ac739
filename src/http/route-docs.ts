import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifySchema, onRequestHookHandler } from 'fastify';
import { errors } from './schemas.js';

/** A feature's routes: a plugin made from the services they call (and the guards they use). */
export type Routes<Deps> = (deps: Deps) => FastifyPluginAsyncTypebox;

/** The OpenAPI tag and the bearer-token security of a signed-in route, spread into its schema. */
export function docs(tag: string) {
  return { tags: [tag], security: [{ bearer: [] }] };
}

/** What every route of a scope shares, besides its tag. */
interface Shared {
  /** the guard (or guards) every route runs first, unless a route names its own */
  onRequest?: onRequestHookHandler | onRequestHookHandler[];
  /** the error statuses every route can answer with (its guard's 401 and 403, say) */
  errors?: number[];
}

/**
 * The documentation a scope's routes share: their OpenAPI tag and bearer security, the error
 * statuses they all can give and, when given, their guard. Returns `doc(summary, schema,
 * options?)`, the options of one route: the shared ones, then its own, and its schema after the
 * tag and security, its responses joined by the shared error statuses.
 */
export function documented(tag: string, shared: Shared = {}) {
  const { errors: always = [], ...options } = shared;
  const common = docs(tag);
  return <S extends FastifySchema & { response: object }, O extends object = object>(
    summary: string,
    schema: S,
    extra?: O,
  ) => ({
    ...options,
    ...(extra as O),
    schema: {
      ...common,
      summary,
      ...schema,
      response: { ...errors(...always), ...schema.response } as S['response'],
    },
  });
}

/** Answers 204 once `done` has settled: the handler of a route whose success has no body. */
export async function noContent(reply: FastifyReply, done: Promise<unknown>) {
  await done;
  return reply.status(204).send(null);
}

/** Answers 201 when the write created its record, 200 when the record was there already. */
export function createdOrOk(reply: FastifyReply, created: boolean, body: unknown) {
  return reply.status(created ? 201 : 200).send(body);
}
