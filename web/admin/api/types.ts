/** Wire shapes of the JSON API the admin interface uses (see docs/api.md and /api/openapi.json). */

export interface LoginResponse {
  accessToken: string;
  refreshToken: string;
  userId: string;
  username: string;
  isAdmin: boolean;
  inventoryId: string | null;
}

export interface User {
  id: string;
  username: string;
  createdAt: number;
  isAdmin: boolean;
  inventoryId: string | null;
}

export interface InventoryView {
  inventoryId: string;
  name: string;
  users: { id?: string; username: string; isAdmin: boolean }[];
}

export interface Totals {
  totalItems: number;
  totalLocations: number;
  totalCategories: number;
  recentTransactions: number;
  lastUpdated: number | null;
}

export interface InventoryStats extends Totals {
  inventoryId: string;
  inventoryName: string;
  userCount: number;
}

export interface Resource {
  guid: string;
  title: string;
  description: string;
  tags: string[];
  fileFormat: string;
  mimeType: string;
  fileSize: number;
  releaseDate: string | null;
  createdAt: number;
  updatedAt: number;
  author: string | null;
  language: string | null;
  edition: string | null;
  downloadUrl: string;
}

export interface AnalyzedResource {
  filename: string;
  title: string;
  description: string;
  author: string | null;
  tags: string[];
  fileFormat: string;
  mimeType: string;
  fileSize: number;
  language: string | null;
  edition: string | null;
  releaseDate: string | null;
}

export interface TagSuggestion {
  tag: string;
  count: number;
}

export interface BackupEntry {
  name: string;
  sizeBytes: number;
  createdAt: number;
}
