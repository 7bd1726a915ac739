/**
 * Where the server's own files are, computed from this module's URL. It sits next to server.ts on
 * purpose: from the sources it is src/, from the tsc output dist/, and in the bundle (dist/server.js,
 * where every bundled module shares the entry's import.meta.url) still dist/. Modules that find
 * files relative to themselves (locales, the analysis worker, web/dist) go through here, because
 * their own import.meta.url is the bundle's, not theirs, once bundled.
 */
export const SERVER_DIR = new URL('./', import.meta.url);

/** The project root: the parent of src/ and dist/. */
export const ROOT_DIR = new URL('../', SERVER_DIR);

/** True when running the TypeScript sources (tsx, tests), false from dist/. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');
