import type { TSchema } from '@fastify/type-provider-typebox';
import type { SocketFrames } from './frames.js';

/**
 * The AsyncAPI 3.0 document of /ws/sync (served at /api/asyncapi.json), made from the very
 * TypeBox frame types the hub sends and checks (each part's, joined in src/app.frames.ts): one
 * message per frame type, the server's frames on `send` operations and the client's on
 * `receive` (the document describes the server).
 */

type Json = Record<string, unknown>;

/** A plain JSON copy without TypeBox's own keys and `$id`s (schemas are inlined). */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === '$id' ? undefined : value,
  ) as Json;
}

/** Each frame schema of a union, keyed by its `type` constant; payloads refuse unknown fields. */
function framesOf(union: TSchema): [string, Json][] {
  return (plain(union).anyOf as Json[]).map((frame) => {
    const type = ((frame.properties as Json).type as Json).const as string;
    return [type, { ...frame, additionalProperties: false }];
  });
}

const ucfirst = (s: string) => s[0]!.toUpperCase() + s.slice(1);
/** `new_message` → `NewMessage` */
const pascal = (type: string) => type.split('_').map(ucfirst).join('');

/** The document of the app's frames (src/app.frames.ts). */
export function asyncApiDocument(frames: SocketFrames): Json {
  const server = framesOf(frames.ServerFrameSchema);
  const client = framesOf(frames.ClientFrameSchema);
  const messages: Json = {};
  const operations: Json = {};
  for (const [direction, action] of [
    [server, 'send'],
    [client, 'receive'],
  ] as const) {
    for (const [type, payload] of direction) {
      messages[type] = {
        name: type,
        title: type,
        summary: frames.summaries[type] ?? type,
        contentType: 'application/json',
        payload,
      };
      operations[`${action}${pascal(type)}`] = {
        action,
        summary: `${action === 'send' ? 'server → client' : 'client → server'}: ${type}`,
        channel: { $ref: '#/channels/sync' },
        messages: [{ $ref: `#/channels/sync/messages/${type}` }],
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Larder realtime (/ws/sync)',
      version: '1',
      description:
        'Text frames, one JSON object each with a `type`. Sign in on the upgrade with ' +
        '`Authorization: Bearer <accessToken>` or `?token=<accessToken>`; a refused token is ' +
        'HTTP 401 before the upgrade; while upgrades queue (a reconnect storm), HTTP 503 with ' +
        'a Retry-After of its own. The HTTP API is at /api/openapi.json; see docs/api.md.',
    },
    defaultContentType: 'application/json',
    servers: {
      larder: {
        host: '{host}',
        protocol: 'ws',
        description: 'the Larder server itself (wss behind TLS), same port as the HTTP API',
        variables: { host: { default: 'localhost:8080', description: 'host[:port]' } },
        security: [{ $ref: '#/components/securitySchemes/bearer' }],
      },
    },
    channels: {
      sync: {
        address: '/ws/sync',
        title: 'The push channel of a signed-in user',
        messages: Object.fromEntries(
          Object.keys(messages).map((type) => [type, { $ref: `#/components/messages/${type}` }]),
        ),
        bindings: {
          ws: {
            method: 'GET',
            query: {
              type: 'object',
              properties: {
                token: {
                  type: 'string',
                  description: 'the access token, for clients that cannot set headers',
                },
              },
            },
            bindingVersion: '0.1.0',
          },
        },
      },
    },
    operations,
    components: {
      messages,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'the accessToken of POST /api/auth/login (or ?token=)',
        },
      },
    },
  };
}
