/** The resource catalog and the files an admin has staged for it. */

export interface ResourcesTable {
  guid: string;
  title: string;
  /** Markdown, kept as text */
  description: string;
  file_format: string;
  mime_type: string;
  file_size: number;
  /** the name offered when downloading (sanitised) */
  file_name: string;
  /** the file's name under <dataDir>/resources/ (generated) */
  storage_name: string;
  /** hex SHA-256 of the content: the download ETag */
  sha256: string;
  release_date: string | null;
  author: string | null;
  language: string | null;
  edition: string | null;
  created_at: number;
  updated_at: number;
}

export interface ResourceTagsTable {
  resource_guid: string;
  tag: string;
}

export interface ResourceTagDefaultsTable {
  tag: string;
  seeded_at: number;
}

export interface StagedFilesTable {
  id: string;
  admin_id: string;
  /** the label shown and confirmed by (sanitised original name); unique per admin */
  filename: string;
  /** generated file name under <dataDir>/staging/<adminId>/ */
  storage_name: string;
  file_format: string;
  mime_type: string;
  file_size: number;
  created_at: number;
}
