import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { originOf } from '#src/http/origin.js';
import { errors } from '#src/http/schemas.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import type { CalendarService } from './calendar.service.js';

const FEED_PATH = '/api/inventory/calendar.ics';

const CalendarKeySchema = Type.Object({
  key: Type.String({ description: 'the feed key (43 characters); shown once, stored as its hash' }),
  url: Type.String({ description: 'the feed URL with the key, to subscribe to in a calendar app' }),
});

const FeedQuery = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 200, description: 'the feed key' }),
});

/** POST /api/inventory/calendar-key: registered inside inventoryRoutes (signed-in members). */
export function calendarKeyRoutes(calendar: CalendarService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/inventory/calendar-key',
      inventoryDoc(
        `Make a new feed key for the inventory's expiry calendar; the key made before stops working. ${WHO}`,
        { response: { 201: CalendarKeySchema } },
      ),
      async (request, reply) => {
        const key = await calendar.newKey(callerOf(request));
        const url = `${originOf(request)}${FEED_PATH}?key=${encodeURIComponent(key)}`;
        return reply.status(201).send({ key, url });
      },
    );
  };
}

/**
 * GET /api/inventory/calendar.ics?key=: anybody holding the inventory's current feed key (a
 * calendar app cannot sign in); the key reads this feed and nothing else.
 */
export function calendarFeedRoutes(calendar: CalendarService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      FEED_PATH,
      {
        config: { access: 'public' },
        schema: {
          tags: ['inventory'],
          summary:
            "Holders of the inventory's current calendar key (no sign-in): its expiry dates as " +
            'iCalendar, one all-day event per item with an expiry date',
          querystring: FeedQuery,
          response: {
            200: {
              description: 'iCalendar (RFC 5545)',
              content: { 'text/calendar': { schema: { type: 'string' } } },
            },
            ...errors(400, 401),
          },
        },
      },
      async (request, reply) =>
        reply
          .type('text/calendar; charset=utf-8')
          .header('cache-control', 'private, no-cache')
          .send(await calendar.feed(request.query.key)),
    );
  };
}
