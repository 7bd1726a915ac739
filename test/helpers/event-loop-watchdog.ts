import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface WatchReport {
  /**
   * the most CPU time this thread (the server's, in these tests) spent between two turns of its
   * event loop: what a blocking task took from every other request, in a unit that does not
   * grow while other processes hold the machine's cores (docs/decisions.md, "Tests")
   */
  longestCpuWithoutTurnMs: number;
  /** the CPU time this thread spent while watched, in all */
  threadCpuMs: number;
  /** the longest event-loop delay seen (perf_hooks histogram, 10 ms resolution): wall-clock */
  maxDelayMs: number;
  /** the slowest `/health` answer, counted from when the ping was due: wall-clock */
  slowestHealthMs: number;
  pings: number;
  /** pings that failed or answered other than 200 */
  healthFailures: number;
  /** the process's peak RSS (worker threads included) above its RSS when watching began */
  peakRssGrowthBytes: number;
}

const rssOf = (status: string, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) * 1024;

const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/** How often the loop's turns are counted (a timer that reads the thread's CPU time). */
const TURN_MS = 10;

/**
 * Watches a server that runs in this process while a test does something hostile to it: reads
 * this thread's CPU time at every turn of the event loop (a timer every 10 ms, never catching
 * up on turns it missed), samples the event-loop delay, pings `/health` over its real listening
 * port every `everyMs`, and tracks the peak RSS. A ping's time counts from when it was due, so a
 * blocked loop that delays the ping itself still shows. The peak is the kernel's high-water mark
 * (reset through /proc/self/clear_refs when watching begins), so allocations between samples are
 * not missed. The wall-clock figures are for the record; what a test asserts on a shared machine
 * is the CPU time between turns, the health answers and the memory.
 */
export function watchServer(base: string, everyMs = 50) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const hasProc = fs.existsSync('/proc/self/clear_refs');
  if (hasProc) fs.writeFileSync('/proc/self/clear_refs', '5');
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  let slowest = 0;
  let pings = 0;
  let failures = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const startCpu = threadCpuMs();
  let lastTurnCpu = startCpu;
  let longestCpuWithoutTurn = 0;
  const turn = () => {
    const now = threadCpuMs();
    longestCpuWithoutTurn = Math.max(longestCpuWithoutTurn, now - lastTurnCpu);
    lastTurnCpu = now;
  };
  const turns = setInterval(turn, TURN_MS);
  let timer: NodeJS.Timeout;
  const ping = (due: number) => {
    pings++;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    pending.push(
      fetch(`${base}/health`).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) failures++;
          slowest = Math.max(slowest, performance.now() - due);
        },
        () => void failures++,
      ),
    );
    const next = due + everyMs;
    timer = setTimeout(() => ping(next), Math.max(0, next - performance.now()));
  };
  timer = setTimeout(() => ping(started + everyMs), everyMs);

  return {
    /** Stops at once (the peak is read before waiting for the last pings to answer). */
    async stop(): Promise<WatchReport> {
      turn();
      clearInterval(turns);
      clearTimeout(timer);
      histogram.disable();
      if (hasProc) peakRss = rssOf(fs.readFileSync('/proc/self/status', 'utf8'), 'VmHWM');
      await Promise.all(pending);
      return {
        longestCpuWithoutTurnMs: longestCpuWithoutTurn,
        threadCpuMs: lastTurnCpu - startCpu,
        maxDelayMs: histogram.max / 1e6,
        slowestHealthMs: slowest,
        pings,
        healthFailures: failures,
        peakRssGrowthBytes: peakRss - startRss,
      };
    },
  };
}
