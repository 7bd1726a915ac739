import { formatBytes } from '#web/admin/format.ts';
import { t } from '#web/admin/i18n.ts';

/** The server's upload limit (docs/resources.md): checked here before anything is sent. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

export const tooLarge = (file: File) =>
  t('resources.tooLarge', { name: file.name, size: formatBytes(file.size) });
