import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, unsupportedNodeMessage } from '#src/node-version.js';
import { isSupportedNode as scriptRule } from '#scripts/check-node.mjs';

const root = path.resolve(import.meta.dirname, '..');

describe('the Node versions Larder runs on', () => {
  const cases: [string, boolean][] = [
    ['20.20.2', false],
    ['21.7.3', false],
    ['22.12.0', false],
    ['22.13.0', true],
    ['22.23.3', true],
    ['23.11.0', false],
    ['24.0.0', true],
    ['24.21.0', true],
    ['26.1.0', true],
    ['27.0.0', false],
    ['v18.19.1', false],
  ];

  it.each(cases)('%s → %s, the same in the server, the scripts and package.json', (v, ok) => {
    expect(isSupportedNode(v)).toBe(ok);
    expect(scriptRule(v)).toBe(ok);
  });

  it('package.json engines says the range both rules encode', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.engines.node).toBe('>=22.13 <23 || >=24 <27');
  });

  it('the refusal names the lines to use and how to get one', () => {
    const message = unsupportedNodeMessage('v20.20.2');
    expect(message).toContain('v20.20.2');
    expect(message).toMatch(/Node\.js 24\b/);
    expect(message).toMatch(/\b22\b/);
    expect(message).toContain('scripts/node.sh 24');
  });
});
