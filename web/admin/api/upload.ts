import { t } from '#web/admin/i18n.ts';
import { ApiError, freshAccessToken, SESSION_EXPIRED } from './client.ts';

/** Upload progress: bytes sent so far out of total. */
export type Progress = (sent: number, total: number) => void;

function parseError(xhr: XMLHttpRequest): ApiError {
  let message = `${xhr.status} ${xhr.statusText}`.trim() || t('upload.failed');
  let code = 'http_error';
  try {
    const body = JSON.parse(xhr.responseText) as { message?: unknown; code?: unknown };
    if (typeof body.message === 'string') message = body.message;
    if (typeof body.code === 'string') code = body.code;
  } catch {
    // not JSON
  }
  return new ApiError(xhr.status, code, message);
}

/**
 * Multipart POST through XMLHttpRequest, the one browser API that reports upload progress.
 * The token is refreshed beforehand when it is about to expire, so a long upload is not refused.
 */
export async function uploadForm<T>(
  path: string,
  form: FormData,
  onProgress: Progress,
): Promise<T> {
  const token = await freshAccessToken();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status === 401) return reject(new ApiError(401, 'unauthorized', SESSION_EXPIRED()));
      if (xhr.status < 200 || xhr.status >= 300) return reject(parseError(xhr));
      try {
        resolve((xhr.responseText ? JSON.parse(xhr.responseText) : undefined) as T);
      } catch {
        reject(new ApiError(xhr.status, 'http_error', t('upload.unreadable')));
      }
    });
    xhr.addEventListener('error', () =>
      reject(new ApiError(0, 'network', t('upload.unreachable'))),
    );
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'aborted', t('upload.cancelled'))));
    xhr.send(form);
  });
}
