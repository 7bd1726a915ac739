import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '#test/helpers/fixtures.js';
import { frameProblem } from '#test/helpers/contract.js';

type Json = Record<string, any>;

// The document comes from the frame types alone, the same on either dialect.
describe('the AsyncAPI document of /ws/sync at /api/asyncapi.json', () => {
  const t = useTestApp('sqlite');
  const served = async (): Promise<Json> =>
    (await t.app.inject({ url: '/api/asyncapi.json' })).json();

  it('is a valid AsyncAPI 3.0 document for @asyncapi/parser', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(await served()));
    const errors = diagnostics.filter((d) => d.severity === 0);
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(
      document
        ?.channels()
        .all()
        .map((c) => c.address()),
    ).toEqual(['/ws/sync']);
  });

  it('has every frame of both directions as a message fixing its type, on opposite actions', async () => {
    const doc = await served();
    const byAction: Record<string, string[]> = { send: [], receive: [] };
    for (const operation of Object.values(doc.operations as Json)) {
      for (const ref of operation.messages)
        byAction[operation.action]!.push(ref.$ref.split('/').pop());
    }
    expect(byAction.send).toEqual(
      expect.arrayContaining([
        'hello',
        'inventoryUpdated',
        'fullSyncRequired',
        'new_message',
        'message_delivered',
        'pong',
      ]),
    );
    expect(byAction.receive).toEqual(expect.arrayContaining(['ack', 'ping']));
    for (const [type, message] of Object.entries(doc.components.messages as Json)) {
      expect(message.payload.properties.type.const, type).toBe(type);
    }
  });

  it('is linked from the OpenAPI document that /api/docs shows', async () => {
    const openapi = (await t.app.inject({ url: '/api/openapi.json' })).json();
    expect(openapi.info.description).toContain('/api/asyncapi.json');
  });

  it('refuses a frame that differs from it (the ws test helper checks every frame)', () => {
    expect(frameProblem({ type: 'pong' })).toBeNull();
    expect(frameProblem({ type: 'hello', userId: 'u', inventoryId: null, revision: 0 })).toBeNull();
    expect(frameProblem({ type: 'hello', userId: 'u', revision: 0 })).toMatch(/inventoryId/);
    expect(frameProblem({ type: 'pong', extra: 1 })).toMatch(/additional/);
    expect(frameProblem({ type: 'surprise' })).toMatch(/does not name/);
  });
});
