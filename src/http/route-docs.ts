import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifySchema, onRequestHookHandler } from 'fastify';

/** A feature's routes: a plugin made from the services they call (and the guards they use). */
export type Routes<Deps> = (deps: Deps) => FastifyPluginAsyncTypebox;

/** The OpenAPI tag and the bearer-token security of a signed-in route, spread into its schema. */
export function docs(tag: string) {
  return { tags: [tag], security: [{ bearer: [] }] };
}

/** Route options every route of a scope shares (a guard that only some scopes' routes carry). */
interface SharedOptions {
  onRequest?: onRequestHookHandler | onRequestHookHandler[];
}

/**
 * The documentation a scope's routes share: their OpenAPI tag and bearer security (and, when
 * given, route options such as their guard). Returns `doc(summary, schema, options?)`, the
 * options of one route: the shared ones, then its own, and its schema after the tag and security.
 */
export function documented(tag: string, shared: SharedOptions = {}) {
  const common = docs(tag);
  return <S extends FastifySchema, O extends object = object>(
    summary: string,
    schema: S,
    options?: O,
  ) => ({ ...shared, ...(options as O), schema: { ...common, summary, ...schema } });
}

/** Answers 204 once `done` has settled: the handler of a route whose success has no body. */
export async function noContent(reply: FastifyReply, done: Promise<unknown>) {
  await done;
  return reply.status(204).send(null);
}
