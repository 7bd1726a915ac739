/** An answer of the server that is not a success, with its `{message, code}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The server's `{message, code}` of a failed answer; its status line when the body is not JSON. */
export async function errorFrom(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`.trim();
  let code = 'http_error';
  try {
    const body = (await response.json()) as { message?: unknown; code?: unknown };
    if (typeof body.message === 'string') message = body.message;
    if (typeof body.code === 'string') code = body.code;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, code, message);
}

/**
 * JSON in, JSON out over `fetcher` (a fetch that signs requests in); a failed answer throws
 * ApiError with the server's message, a 204 gives undefined.
 */
export function jsonApi(fetcher: (path: string, init: RequestInit) => Promise<Response>) {
  return async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetcher(path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw await errorFrom(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  };
}
