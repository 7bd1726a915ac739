import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';
import { MAX_DESCRIPTION, MAX_TITLE } from './resources.rules.js';

const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });

export const ResourceSchema = Type.Object(
  {
    guid: Type.String({ format: 'uuid' }),
    title: Type.String(),
    description: Type.String({ description: 'Markdown, at most 4096 characters' }),
    tags: Type.Array(Type.String()),
    fileFormat: Type.String({ description: 'lower-case extension: pdf, epub, zip, 7z...' }),
    mimeType: Type.String(),
    fileSize: Type.Integer({ description: 'bytes' }),
    releaseDate: Nullable(DateString),
    createdAt: Type.Integer({ description: 'epoch ms' }),
    updatedAt: Type.Integer({ description: 'epoch ms' }),
    author: Nullable(Type.String()),
    language: Nullable(Type.String({ description: 'short code such as de, en' })),
    edition: Nullable(Type.String()),
    downloadUrl: Type.String({ description: 'absolute; accepts ?token= for browsers' }),
  },
  { $id: 'Resource', description: 'A catalog entry' },
);
export type Resource = Static<typeof ResourceSchema>;

export const AnalyzedSchema = Type.Object(
  {
    filename: Type.String({ description: 'the label to confirm it by (sanitised original name)' }),
    title: Type.String(),
    description: Type.String(),
    author: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    fileFormat: Type.String(),
    mimeType: Type.String(),
    fileSize: Type.Integer(),
    language: Nullable(Type.String()),
    edition: Nullable(Type.String()),
    releaseDate: Nullable(DateString),
    notes: Type.Array(Type.String(), {
      description: 'what the admin should know, e.g. archive entries that were skipped and why',
    }),
  },
  {
    $id: 'AnalyzedResource',
    description: 'A file analyzed and waiting in the staging area (24 h)',
  },
);
export type AnalyzedResource = Static<typeof AnalyzedSchema>;

export const TagSuggestionSchema = Type.Object(
  { tag: Type.String(), count: Type.Integer() },
  { $id: 'TagSuggestion' },
);

export const ListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 200, description: 'text in title, description or author' }),
    ),
    tag: Type.Optional(Type.String({ maxLength: 50 })),
    format: Type.Optional(Type.String({ maxLength: 8, description: 'file format, e.g. pdf' })),
  },
  { description: 'other query parameters (cache busters) are ignored' },
);

export const GuidParams = Type.Object({ guid: Type.String({ format: 'uuid' }) });

export const ConfirmBody = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: 300 }),
  title: Type.String({ maxLength: MAX_TITLE }),
  description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION })),
  author: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  fileFormat: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
  fileSize: Type.Optional(Type.Integer()),
  language: Type.Optional(Nullable(Type.String({ maxLength: 35 }))),
  edition: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  releaseDate: Type.Optional(Nullable(Type.String({ maxLength: 10 }))),
});

/** PATCH body: any of the editable fields; the ones left out keep their stored value. */
export const PatchBody = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: MAX_TITLE })),
    description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
    author: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    language: Type.Optional(Nullable(Type.String({ maxLength: 35 }))),
    edition: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    releaseDate: Type.Optional(Nullable(Type.String({ maxLength: 10 }))),
  },
  { additionalProperties: false },
);
