import fs from 'node:fs';

/** Descriptors besides the sockets: HTTP load, files, the database, the runtime itself. */
const HEADROOM = 2048;

/** This process's open-file limit. Node raises its soft limit to the hard one at start-up. */
export function openFileLimit(): number {
  const line = fs
    .readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = (line ?? '').split(/\s{2,}/)[1];
  return soft === 'unlimited' ? Infinity : Number(soft ?? 1024);
}

/**
 * Both the server and this client hold one descriptor per socket. Every node process (this one,
 * the server, the baselines) raises its own soft limit to the hard limit when it starts, so only
 * the hard limit can stop the run; raising it takes root, outside this script.
 */
export function checkOpenFiles(sockets: number): void {
  const needed = sockets + HEADROOM;
  const limit = openFileLimit();
  if (limit < needed) {
    throw new Error(
      `${sockets} sockets need ${needed} open files per process; the hard limit is ${limit}. ` +
        `Raise it (as root: ulimit -Hn ${needed} in the shell that runs the bench; ` +
        `LimitNOFILE= for a systemd unit; --ulimit nofile=${needed} for docker) or pass --sockets.`,
    );
  }
}
