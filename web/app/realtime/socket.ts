import { freshAccessToken, isOnline } from '#web/app/session/session.ts';
import { FIRST_BACKOFF_MS, nextBackoff, reconnectDelay } from '#web/app/realtime/reconnect.ts';

/** A frame the server sends on /ws/sync (docs/api.md "Realtime"). */
export type Frame =
  | { type: 'hello'; revision: number }
  | { type: 'inventoryUpdated'; revision: number }
  | { type: 'fullSyncRequired' }
  | { type: 'new_message'; message: unknown }
  | { type: 'message_delivered'; messageId: string; deliveredAt: number }
  | { type: string };

const PING_MS = 25_000;

/**
 * The app's socket: open while the browser is online and the user signed in; closed when the
 * browser goes offline and opened again when it comes back (each `hello` makes the app catch up);
 * reconnects with a jittered backoff when the server drops it (./reconnect.ts). A browser is not
 * shown why an upgrade failed, so a 503's Retry-After counts as any failure: the backoff doubles.
 */
export function connectRealtime(onFrame: (frame: Frame) => void) {
  let socket: WebSocket | null = null;
  let stopped = false;
  let backoff = FIRST_BACKOFF_MS;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let ping: ReturnType<typeof setInterval> | null = null;

  const clearTimers = () => {
    if (retry) clearTimeout(retry);
    if (ping) clearInterval(ping);
    retry = ping = null;
  };

  async function open(): Promise<void> {
    if (stopped || socket || !isOnline()) return;
    let token: string;
    try {
      token = await freshAccessToken();
    } catch {
      schedule();
      return;
    }
    if (stopped || socket || !isOnline()) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(
      `${scheme}//${location.host}/ws/sync?token=${encodeURIComponent(token)}`,
    );
    socket = ws;
    ws.onopen = () => {
      backoff = FIRST_BACKOFF_MS;
      ping = setInterval(() => ws.send(JSON.stringify({ type: 'ping' })), PING_MS);
    };
    ws.onmessage = (event) => {
      try {
        onFrame(JSON.parse(String(event.data)) as Frame);
      } catch {
        // not a frame of ours: ignore
      }
    };
    ws.onclose = () => {
      if (socket === ws) socket = null;
      clearTimers();
      schedule();
    };
  }

  function schedule(): void {
    if (stopped || retry || !isOnline()) return;
    retry = setTimeout(() => {
      retry = null;
      void open();
    }, reconnectDelay(backoff));
    backoff = nextBackoff(backoff);
  }

  function close(): void {
    clearTimers();
    const ws = socket;
    socket = null;
    ws?.close();
  }

  const goneOffline = () => close();
  const backOnline = () => {
    backoff = FIRST_BACKOFF_MS;
    void open();
  };
  addEventListener('offline', goneOffline);
  addEventListener('online', backOnline);
  void open();

  return {
    send(frame: object): void {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
    },
    stop(): void {
      stopped = true;
      removeEventListener('offline', goneOffline);
      removeEventListener('online', backOnline);
      close();
    },
  };
}
