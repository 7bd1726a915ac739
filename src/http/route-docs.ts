import type { FastifyReply } from 'fastify';

/** The OpenAPI tag and the bearer-token security of a signed-in route, spread into its schema. */
export function docs(tag: string) {
  return { tags: [tag], security: [{ bearer: [] }] };
}

/** Answers 204 once `done` has settled: the handler of a route whose success has no body. */
export async function noContent(reply: FastifyReply, done: Promise<unknown>) {
  await done;
  return reply.status(204).send(null);
}
