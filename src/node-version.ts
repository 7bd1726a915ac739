/**
 * The Node.js lines Larder runs on, as package.json `engines` says (">=22.13 <23 || >=24 <27"):
 * scripts/check-node.mjs holds the same rule for `npm test` and `npm start`, where no TypeScript
 * loads, and test/node-version.test.ts keeps the two and package.json in step.
 *
 * This module imports nothing: the process entries (src/main.ts, src/cli.ts) load it before
 * anything else, because on another Node a native module crashes the process before it can say
 * why (better-sqlite3's build segfaults on Node 20).
 */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return (major === 22 && minor >= 13) || (major >= 24 && major < 27);
}

/** The one line said on an unsupported Node: what runs, what is needed, how to get it. */
export function unsupportedNodeMessage(version: string): string {
  return (
    `larder: Node.js ${version} is not supported: run Larder on Node.js 24 (recommended) or 22 ` +
    `(22.13 or newer). On Linux x86_64, scripts/node.sh 24 <command> fetches Node 24 and runs ` +
    `the command on it (README, "Start").`
  );
}

/** Exits with status 1 and the message when this Node is not one Larder runs on. */
export function refuseUnsupportedNode(): void {
  if (isSupportedNode(process.versions.node)) return;
  process.stderr.write(`${unsupportedNodeMessage(process.version)}\n`);
  process.exit(1);
}
