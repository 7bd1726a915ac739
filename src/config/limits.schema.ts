import { duration, whole } from './config.kinds.js';

/** What one connection, one user and the whole process may take before the server says no. */
export const limitVariables = {
  LARDER_HEADERS_TIMEOUT: duration({
    default: '20s',
    description: "a request's headers must arrive within this, else the connection is closed (408)",
  }),
  LARDER_REQUEST_TIMEOUT: duration({
    default: '5m',
    description:
      'a whole request, body included (a 25 MB upload on a slow link), must arrive within this; not shorter than the headers timeout',
  }),
  LARDER_BODY_MIN_RATE: whole({
    default: '500',
    min: 0,
    max: 1_000_000_000,
    description:
      'bytes a second a request body must average once it has had `LARDER_BODY_MIN_RATE_AFTER`, else the connection is closed (a trickled body); `0`: no minimum',
  }),
  LARDER_BODY_MIN_RATE_AFTER: duration({
    default: '20s',
    description: 'how long a body may take before `LARDER_BODY_MIN_RATE` counts',
  }),
  LARDER_KEEP_ALIVE_TIMEOUT: duration({
    default: '10s',
    description: 'an idle keep-alive connection is closed after this',
  }),
  LARDER_MAX_REQUESTS_PER_SOCKET: whole({
    default: '1000',
    min: 0,
    max: 1_000_000,
    description:
      'requests served on one keep-alive connection: the last is answered with `Connection: close` and the connection is closed (`0`: no limit)',
  }),
  LARDER_MAX_CONNECTIONS: whole({
    default: '16384',
    min: 1,
    max: 1_000_000,
    description:
      "open connections (WebSockets included) the server accepts; more are closed at once. Each takes a file descriptor: the process's open-file limit (`ulimit -n`) must be above it",
  }),
  LARDER_MESSAGES_PER_MINUTE: whole({
    default: '120',
    min: 1,
    max: 1_000_000,
    description:
      'messages one user may send per minute (as many at once, e.g. an offline queue); beyond it `POST /api/messages` answers 429 `rate_limited` with `Retry-After`',
  }),
  LARDER_SOCKETS_PER_USER: whole({
    default: '16',
    min: 1,
    max: 10_000,
    description:
      '`/ws/sync` sockets one user may hold on an instance; one more closes their oldest with code 4008',
  }),
  LARDER_UPGRADE_QUEUE_WAIT_MS: whole({
    default: '5000',
    min: 0,
    max: 600_000,
    description:
      'when the oldest `/ws/sync` upgrade in progress (waiting for its token check on PostgreSQL) has waited longer than this, and those in progress would take longer than this at the pace upgrades finish, a new one is answered 503 `unavailable` with a `Retry-After` (1–30 s) that spreads the refused clients at that pace, so a reconnect storm comes back in order; `0` turns it off',
  }),
  LARDER_CLOCK_SKEW: duration({
    default: '60',
    zero: 'allowed',
    description:
      "how far ahead of the server's clock a phone's edit time (`lastUpdated`, an offline operation's `createdAt`) may be; a later time counts as the server's clock, so a phone set a year ahead cannot lock an item (a duration: `60`, `2m`; `0` clamps every future time)",
  }),
  LARDER_OVERLOAD_EVENT_LOOP_DELAY_MS: whole({
    default: '1000',
    min: 0,
    max: 60_000,
    description:
      'when the mean event-loop delay stays above this (two samples of 0.5 s in a row), every request but `GET /health` answers 503 `unavailable` with `Retry-After: 5` instead of queueing; `0` turns it off',
  }),
  LARDER_OVERLOAD_HEAP_MB: whole({
    default: '0',
    min: 0,
    max: 1_000_000,
    description: 'the same when the V8 heap in use passes this many MB; `0` turns it off',
  }),
};
