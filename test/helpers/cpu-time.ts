/**
 * The CPU time this process spent (every thread: the server, its analysis workers) while `work`
 * ran, beside its result. Unlike the wall-clock time it does not grow while other processes hold
 * the machine's cores (docs/decisions.md, "Tests"); anything else this process does meanwhile
 * counts too.
 */
export async function withCpuTime<T>(
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const result = await work();
  const { user, system } = process.cpuUsage(before);
  return { result, cpuMs: (user + system) / 1000 };
}
