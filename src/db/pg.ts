import type pg from 'pg';

let loading: Promise<typeof pg> | null = null;

/**
 * The pg driver, imported on first use: a server on SQLite never loads it (~15-20 ms of its
 * start-up, docs/performance.md). Every PostgreSQL connection is made through here, so the type
 * parsers below are set before the first query.
 */
export function loadPg(): Promise<typeof pg> {
  return (loading ??= import('pg').then(({ default: driver }) => {
    // BIGINT (timestamps in ms, revisions) come back as numbers: they stay far below 2^53.
    driver.types.setTypeParser(driver.types.builtins.INT8, (value) => Number(value));
    driver.types.setTypeParser(driver.types.builtins.NUMERIC, (value) => Number(value));
    return driver;
  }));
}
