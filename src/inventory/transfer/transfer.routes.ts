import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import { callerOf } from '#src/http/auth.js';
import { FILE_HEADERS } from '#src/http/security-headers.js';
import { errors, errorWith, refTo } from '#src/http/schemas.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { decodeCsvBody } from './transfer.csv.js';
import {
  ExportQuery,
  IMPORT_BODY_LIMIT,
  ImportQuery,
  ImportResultSchema,
} from './transfer.schemas.js';
import type { ImportBody, TransferService } from './transfer.service.js';

/** /api/inventory/export and /import: registered inside inventoryRoutes. */
export function transferRoutes(transfer: TransferService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(ImportResultSchema);
    // CSV arrives as text; only this plugin (the import route) accepts it
    app.addContentTypeParser(
      ['text/csv', 'text/plain'],
      { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT },
      (request, body, done) => {
        try {
          done(null, decodeCsvBody(body as Buffer, request.headers['content-type']));
        } catch (err) {
          done(err as Error, undefined);
        }
      },
    );

    app.get(
      '/api/inventory/export',
      inventoryDoc(
        `Download every item with its category and location names: format=csv (default; ` +
          `UTF-8 with BOM, CRLF, for spreadsheets) or json. ${WHO}`,
        {
          querystring: ExportQuery,
          produces: ['text/csv', 'application/json'],
          response: {
            200: Type.Unknown({ description: 'the file (Content-Disposition: attachment)' }),
            ...errors(400),
          },
        },
        {
          // nosniff and a sandbox, as every download
          helmet: FILE_HEADERS,
        },
      ),
      async (request, reply) => {
        const format = request.query.format ?? 'csv';
        const { fileName, ...data } = await transfer.exportItems(callerOf(request), format);
        reply.header('content-disposition', contentDisposition(fileName));
        if (format === 'csv') {
          return reply.type('text/csv; charset=utf-8').send(transfer.toCsv(data.items));
        }
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ format: 'larder-inventory', version: 1, ...data }, null, 2));
      },
    );

    app.post(
      '/api/inventory/import',
      inventoryDoc(
        `Import items from CSV (text/csv) or JSON (an export, or Grocy's /api/stock): a dry ` +
          `run unless apply=true, which writes it all in one change; any refused row is 400 ` +
          `with each row's line and reason, and nothing is written. ${WHO}`,
        {
          consumes: ['text/csv', 'application/json'],
          querystring: ImportQuery,
          body: Type.Unknown({ description: 'CSV text or JSON, at most 4 MB' }),
          response: {
            200: refTo(ImportResultSchema),
            400: errorWith('validation_failed; `rows` lists each refused row when rows were', {
              rows: Type.Array(
                Type.Object({
                  line: Type.Integer({ description: 'CSV line (1: the header) or list position' }),
                  reason: Type.String(),
                }),
              ),
            }),
            ...errors(413, 415, 422),
          },
        },
        { bodyLimit: IMPORT_BODY_LIMIT },
      ),
      (request) => {
        const body: ImportBody =
          typeof request.body === 'string'
            ? { kind: 'csv', text: request.body }
            : { kind: 'json', value: request.body };
        return transfer.importItems(callerOf(request), body, request.query.apply === true);
      },
    );
  };
}
