import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

const KYSELY_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

interface ColumnRow {
  table: string;
  schema: string;
  is_view: boolean;
  column: string;
  data_type: string;
  not_null: boolean;
  has_default: boolean;
  auto_incrementing: boolean;
}

/**
 * Kysely's PostgreSQL introspection, limited to the connection's current schema (the server's
 * LARDER_DATABASE_SCHEMA). Kysely's own reads every schema of the database and calls
 * has_schema_privilege and pg_get_serial_sequence on each: when another client drops a schema
 * meanwhile (another Larder's tests, another application), the query fails with `schema "…" does
 * not exist`, and its migrator asks it on every start. A column is auto-incrementing when it is
 * an identity or its default draws from a sequence.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`select current_schema() as name`.execute(this.db);
    return rows;
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", n.nspname as "schema", c.relkind in ('v', 'm') as "is_view",
        a.attname as "column", t.typname as "data_type", a.attnotnull as "not_null",
        a.atthasdef as "has_default",
        (a.attidentity <> '' or coalesce(pg_get_expr(d.adbin, d.adrelid) like 'nextval(%', false))
          as "auto_incrementing"
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid
      join pg_type t on t.oid = a.atttypid
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')
        and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<
      string,
      TableMetadata & { columns: TableMetadata['columns'][number][] }
    >();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLES.has(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = {
          name: row.table,
          schema: row.schema,
          isView: row.is_view,
          isForeign: false,
          columns: [],
        };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.data_type,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing,
      });
    }
    return [...tables.values()];
  }
}

/** Kysely's PostgreSQL dialect with the introspection above. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
