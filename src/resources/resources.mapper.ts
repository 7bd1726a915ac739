import type { ResourceRow } from './resources.repository.js';
import type { Resource } from './resources.schemas.js';

/** A catalogued resource as the service hands it out: its row and its tags, sorted. */
export interface StoredResource {
  row: ResourceRow;
  tags: string[];
}

/** The wire shape of a resource; `baseUrl` (the request's origin) makes the download URL absolute. */
export function toResource({ row, tags }: StoredResource, baseUrl: string): Resource {
  return {
    guid: row.guid,
    title: row.title,
    description: row.description,
    tags,
    fileFormat: row.file_format,
    mimeType: row.mime_type,
    fileSize: Number(row.file_size),
    releaseDate: row.release_date,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    author: row.author,
    language: row.language,
    edition: row.edition,
    downloadUrl: `${baseUrl}/api/resources/${row.guid}/download`,
  };
}
