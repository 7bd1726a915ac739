// Loaded with `node --import` into a server process (Larder's dist/main.js or a bare baseline) for
// the snapshot case, so the event loop is observed from inside without changing the server:
//   'mark' starts a window; 'read' answers {busyMs, longestMs} for the window so far:
//   busyMs     event-loop busy time (performance.eventLoopUtilization: time not waiting for I/O)
//   longestMs  the longest single stall (monitorEventLoopDelay, 1 ms resolution)
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let since = performance.eventLoopUtilization();

process.on('message', (message) => {
  if (message === 'mark') {
    delay.reset();
    since = performance.eventLoopUtilization();
    process.send({ marked: true });
  } else if (message === 'read') {
    const window = performance.eventLoopUtilization(since);
    process.send({ busyMs: window.active, longestMs: delay.max / 1e6 });
  }
});
// the channel must not keep the server alive, nor stop it from exiting on SIGTERM
process.channel?.unref();
