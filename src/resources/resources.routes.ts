import multipart from '@fastify/multipart';
import { Type } from '@fastify/type-provider-typebox';
import { callerOf, type Guards } from '#src/http/auth.js';
import { originOf } from '#src/http/origin.js';
import { documentedBody, fileResponses } from '#src/http/openapi.js';
import { errors, refTo } from '#src/http/schemas.js';
import { documented, noContent, type Routes } from '#src/http/route-docs.js';
import { FILE_HEADERS } from '#src/http/security-headers.js';
import { sendDownload } from './resources.download.js';
import { ANALYZE_FORMATS, UPLOAD_FORMATS } from './resources.formats.js';
import { toResource } from './resources.mapper.js';
import { MULTIPART_OPTIONS, readResourceForm } from './resources.multipart.js';
import {
  AnalyzedSchema,
  ConfirmBody,
  GuidParams,
  ListQuery,
  PatchBody,
  ResourceSchema,
  TagSuggestionSchema,
} from './resources.schemas.js';
import type { ResourcesService } from './resources.service.js';

const LIMITS = 'limits: file 25 MB, metadata 64 kB, at most 4 parts';
const filePart = { type: 'string', format: 'binary', description: 'the file (its name matters)' };

/** POST /api/admin/resources: the metadata (JSON text) and the file. */
const uploadBody = documentedBody(
  {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['metadata', 'file'],
        properties: {
          metadata: {
            type: 'string',
            description:
              'JSON: {title, description?, tags?, author?, language?, edition?, releaseDate?} ' +
              '(a plain field, or a part with Content-Type application/json)',
          },
          file: filePart,
        },
      },
      encoding: { metadata: { contentType: 'application/json, text/plain' } },
    },
  },
  LIMITS,
);

/** POST /api/admin/resources/analyze: the file alone. */
const analyzeBody = documentedBody(
  {
    'multipart/form-data': {
      schema: { type: 'object', required: ['file'], properties: { file: filePart } },
    },
  },
  LIMITS,
);

/** The catalog for every signed-in user, and its administration (admins only). */
export const resourceRoutes: Routes<{ resources: ResourcesService; guards: Guards }> =
  ({ resources, guards }) =>
  async (app) => {
    await app.register(multipart, MULTIPART_OPTIONS);
    for (const schema of [ResourceSchema, AnalyzedSchema, TagSuggestionSchema]) {
      app.addSchema(schema);
    }
    const Resource = refTo(ResourceSchema);
    const user = documented('resources', { errors: [401] });
    const admin = documented('admin: resources', {
      onRequest: guards.requireAdmin,
      errors: [401, 403],
    });

    app.get(
      '/api/resources',
      user(
        'Any signed-in user: list the catalog, newest first (filters: q, tag, format)',
        { querystring: ListQuery, response: { 200: Type.Array(Resource), ...errors(400) } },
        { onRequest: guards.authenticate },
      ),
      async (request) =>
        (await resources.list(request.query)).map((r) => toResource(r, originOf(request))),
    );

    app.get(
      '/api/resources/:guid/download',
      user(
        'Any signed-in user (bearer header or ?token=): the file, with Range and ETag support',
        {
          params: GuidParams,
          querystring: Type.Object({ token: Type.Optional(Type.String()) }),
          response: { ...fileResponses({ ranges: true, attachment: true }), ...errors(404) },
        },
        { onRequest: guards.authenticateAllowingQueryToken, compress: false, helmet: FILE_HEADERS },
      ),
      async (request, reply) => {
        const { row, key } = await resources.file(request.params.guid);
        return sendDownload(request, reply, {
          path: { storage: resources.storage.objects, key },
          sha256: row.sha256,
          mimeType: row.mime_type,
          filename: row.file_name,
        });
      },
    );

    app.post(
      '/api/admin/resources',
      admin('Admin: add a resource: multipart "metadata" (JSON) + "file" (epub, pdf, zip, 7z)', {
        ...uploadBody,
        response: { 201: Resource, ...errors(400, 413, 415) },
      }),
      async (request, reply) => {
        const form = await readResourceForm(request, {
          dir: resources.storage.resourcesDir,
          storage: resources.storage,
          formats: UPLOAD_FORMATS,
        });
        const stored = await resources.createFromUpload(form.upload, form.metadata);
        return reply.status(201).send(toResource(stored, originOf(request)));
      },
    );

    app.patch(
      '/api/admin/resources/:guid',
      admin(
        'Admin: edit the metadata (title, description, tags, author, language, edition, ' +
          'releaseDate) of a resource without uploading it again; fields left out stay',
        { params: GuidParams, body: PatchBody, response: { 200: Resource, ...errors(400, 404) } },
      ),
      async (request) =>
        toResource(await resources.update(request.params.guid, request.body), originOf(request)),
    );

    app.delete(
      '/api/admin/resources/:guid',
      admin('Admin: delete a resource and its file', {
        params: GuidParams,
        response: { 204: Type.Null(), ...errors(400, 404) },
      }),
      async (request, reply) => noContent(reply, resources.delete(request.params.guid)),
    );

    app.post(
      '/api/admin/resources/analyze',
      admin(
        'Admin: analyze a file (pdf, epub, png, jpg, jpeg, webp, gif, zip, 7z) into staged, ' +
          'analyzed resources (one per supported file, archive entries included); 422 ' +
          'analysis_failed when the analysis passes its deadline or memory budget, 503 when ' +
          'too many analyses wait',
        {
          ...analyzeBody,
          response: {
            200: Type.Array(refTo(AnalyzedSchema)),
            ...errors(400, 413, 415, 422, 503),
          },
        },
        {
          // 503 before a byte of the upload is read when the analysis queue is full
          preHandler: async () => resources.assertCanAnalyze(),
        },
      ),
      async (request) => {
        const adminId = callerOf(request).id;
        const form = await readResourceForm(request, {
          dir: resources.storage.stagingDir(adminId),
          storage: resources.storage,
          formats: ANALYZE_FORMATS,
        });
        return resources.analyze(adminId, form.upload);
      },
    );

    app.post(
      '/api/admin/resources/confirm',
      admin('Admin: move one of their analyzed files (by filename) into the catalog', {
        body: ConfirmBody,
        response: { 201: Resource, ...errors(400, 404) },
      }),
      async (request, reply) => {
        const { filename } = request.body;
        const stored = await resources.confirm(callerOf(request).id, filename, request.body);
        return reply.status(201).send(toResource(stored, originOf(request)));
      },
    );

    app.get(
      '/api/admin/resources/tags',
      admin('Admin: tag suggestions, the seeded defaults plus every tag in use, most used first', {
        response: { 200: Type.Array(refTo(TagSuggestionSchema)) },
      }),
      () => resources.tagSuggestions(),
    );
  };
