import { parseSetCookie } from 'cookie';
import type { FastifyInstance } from 'fastify';

export interface Page {
  url: URL;
  status: number;
  body: string;
}

/**
 * A small browser for the sign-in flows: a cookie jar per host and redirects followed by hand
 * (every hop is a real request). Larder's origin is answered by `app.inject`, everything else
 * (the provider) over the network. It stops at a page, or at a redirect to Larder's admin SPA or
 * to a URI that is not http(s) (the app's custom scheme), and returns that URL.
 */
export function createBrowser(app: FastifyInstance, larderOrigin: string) {
  const jar = new Map<string, Map<string, string>>();

  function cookiesFor(url: URL): string {
    return [...(jar.get(url.host) ?? new Map<string, string>())]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }
  function keep(url: URL, setCookies: string[]): void {
    const cookies = jar.get(url.host) ?? new Map<string, string>();
    jar.set(url.host, cookies);
    for (const line of setCookies) {
      const cookie = parseSetCookie(line);
      if (cookie.maxAge === 0 || !cookie.value) cookies.delete(cookie.name);
      else cookies.set(cookie.name, cookie.value);
    }
  }

  async function send(
    url: URL,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<{ status: number; location: string | null; body: string }> {
    const headers: Record<string, string> = { ...init.headers, cookie: cookiesFor(url) };
    const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const method = init.method ?? 'GET';
    if (url.origin === larderOrigin) {
      const res = await app.inject({
        method: method as 'GET',
        url: url.pathname + url.search,
        headers,
        payload: body,
      });
      const setCookie = res.headers['set-cookie'];
      keep(url, setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]);
      const location = res.headers.location;
      return {
        status: res.statusCode,
        location: typeof location === 'string' ? location : null,
        body: res.body,
      };
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    keep(url, res.headers.getSetCookie());
    return { status: res.status, location: res.headers.get('location'), body: await res.text() };
  }

  /**
   * Follows redirects from `url`; stops at a page, Larder's /admin/, a non-http(s) URI, or a
   * URL `stopAt` picks (returned without being requested).
   */
  async function go(
    start: string | URL,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
    stopAt: (url: URL) => boolean = () => false,
  ): Promise<Page> {
    let url = new URL(start, larderOrigin);
    let request = init;
    for (let hops = 0; hops < 20; hops += 1) {
      const res = await send(url, request);
      if (res.status < 300 || res.status >= 400 || res.location === null) {
        return { url, status: res.status, body: res.body };
      }
      url = new URL(res.location, url);
      request = {};
      const landed = url.origin === larderOrigin && url.pathname.startsWith('/admin/');
      if (landed || !/^https?:$/.test(url.protocol) || stopAt(url)) {
        return { url, status: 0, body: '' };
      }
    }
    throw new Error('too many redirects');
  }

  /** Submits the provider's dev login form (any password), then its consent form if asked. */
  async function submitProviderForms(
    page: Page,
    accountId: string,
    stopAt?: (url: URL) => boolean,
  ): Promise<Page> {
    let current = page;
    for (let forms = 0; forms < 3; forms += 1) {
      const prompt = /name="prompt" value="(\w+)"/.exec(current.body)?.[1];
      const action = /<form[^>]*action="([^"]+)"/.exec(current.body)?.[1];
      if (!prompt || !action) return current;
      const form: Record<string, string> =
        prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt };
      current = await go(new URL(action, current.url), { method: 'POST', form }, stopAt);
    }
    return current;
  }

  return {
    go,
    /** The whole sign-in at the provider, from Larder's start URL to where Larder sends back. */
    async signInAt(startUrl: string, accountId: string): Promise<URL> {
      const page = await go(startUrl);
      return (await submitProviderForms(page, accountId)).url;
    },
    submitProviderForms,
    cookiesFor: (url: string) => cookiesFor(new URL(url)),
    /** Takes the cookies of a response the test fetched itself (a signed-in POST). */
    acceptCookies(url: string, setCookie: string | string[] | undefined) {
      keep(new URL(url, larderOrigin), setCookie === undefined ? [] : [setCookie].flat());
    },
  };
}

export type Browser = ReturnType<typeof createBrowser>;
