import crypto from 'node:crypto';
import pg from 'pg';

/**
 * Another client creating and dropping schemas in a loop until stopped, as the other test files
 * do in CI and other applications may on a shared server. Each churner names its schemas with a
 * random prefix of its own: test files running in threads of one process never meet.
 */
export function churnSchemas() {
  const client = new pg.Client({ connectionString: process.env.LARDER_TEST_DATABASE_URL });
  const prefix = `churn_${crypto.randomBytes(4).toString('hex')}`;
  let stopping = false;
  let churned = 0;
  const running = (async () => {
    await client.connect();
    try {
      for (let i = 0; !stopping; i++) {
        const schema = `${prefix}_${i}`;
        await client.query(`create schema "${schema}"`);
        await client.query(`create table "${schema}".t (id bigserial primary key, a text)`);
        await client.query(`drop schema "${schema}" cascade`);
        churned++;
      }
    } finally {
      await client.end();
    }
  })();
  return {
    /** schemas created and dropped so far */
    churned: () => churned,
    async stop(): Promise<void> {
      stopping = true;
      await running;
    },
  };
}
