import { api } from '#web/admin/api/client.ts';
import type { AnalyzedResource, Resource, TagSuggestion } from '#web/admin/api/types.ts';
import { uploadForm, type Progress } from '#web/admin/api/upload.ts';

/** The catalog calls of the Resources tab (/api/resources, /api/admin/resources). */
type Metadata = Pick<
  Resource,
  'title' | 'description' | 'author' | 'tags' | 'language' | 'edition' | 'releaseDate'
>;

const adminPath = (guid: string) => `/api/admin/resources/${encodeURIComponent(guid)}`;

/** Where a resource's file downloads from (with `?token=`). */
export const downloadPath = (guid: string) => `/api/resources/${encodeURIComponent(guid)}/download`;

export function searchResources(filter: { q: string; tag: string }): Promise<Resource[]> {
  const params = new URLSearchParams();
  if (filter.q) params.set('q', filter.q);
  if (filter.tag) params.set('tag', filter.tag);
  const qs = params.toString();
  return api<Resource[]>('GET', `/api/resources${qs ? `?${qs}` : ''}`);
}

export const tagSuggestions = () => api<TagSuggestion[]>('GET', '/api/admin/resources/tags');

/** Sends one file to be analyzed; answers the resources found in it (several in an archive). */
export const analyzeFile = (file: File, onProgress: Progress) => {
  const form = new FormData();
  form.append('file', file, file.name);
  return uploadForm<AnalyzedResource[]>('/api/admin/resources/analyze', form, onProgress);
};

/** Adds an analyzed (staged) file to the catalog with the metadata given. */
export const confirmAnalyzed = (analyzed: AnalyzedResource, metadata: Metadata) =>
  api<Resource>('POST', '/api/admin/resources/confirm', {
    filename: analyzed.filename,
    fileFormat: analyzed.fileFormat,
    mimeType: analyzed.mimeType,
    fileSize: analyzed.fileSize,
    title: metadata.title,
    description: metadata.description,
    author: metadata.author,
    tags: metadata.tags,
    language: metadata.language,
    edition: metadata.edition,
    releaseDate: metadata.releaseDate,
  });

/** A manual upload: `metadata` (JSON text) first, then the file. */
export const uploadResource = (form: FormData, onProgress: Progress) =>
  uploadForm<Resource>('/api/admin/resources', form, onProgress);

export const updateResource = (guid: string, metadata: Metadata) =>
  api<Resource>('PATCH', adminPath(guid), metadata);

export const deleteResource = (guid: string) => api('DELETE', adminPath(guid));
