/** The types of scripts/check-node.mjs, for vitest.config.ts and the tests. */
export function isSupportedNode(version: string): boolean;
