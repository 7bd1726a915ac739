import { useEffect, useState } from 'preact/hooks';
import { offers, type Feature } from '#web/app/features.ts';
import { t } from '#web/app/i18n.ts';
import { api, NetworkError } from '#web/app/session/session.ts';
import type { ComponentChildren } from 'preact';

type State<T> =
  | { kind: 'loading' }
  | { kind: 'not-offered' }
  | { kind: 'offline' }
  | { kind: 'failed'; message: string }
  | { kind: 'loaded'; data: T };

/**
 * A screen whose route comes with a later server version (shopping list, readiness): it asks the
 * server's OpenAPI document first and says plainly when this server does not offer it yet.
 */
export function OptionalScreen<T>(props: {
  feature: Feature;
  path: string;
  title: string;
  /** the screen's content once loaded; `reload` fetches again */
  children: (data: T, reload: () => void) => ComponentChildren;
  /** bumped by the caller when the inventory changed (a pull) */
  revision?: number;
}) {
  const [state, setState] = useState<State<T>>({ kind: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    void (async () => {
      const offered = await offers(props.feature);
      if (!current) return;
      if (offered === null) return setState({ kind: 'offline' });
      if (!offered) return setState({ kind: 'not-offered' });
      try {
        const data = await api<T>('GET', props.path);
        if (current) setState({ kind: 'loaded', data });
      } catch (err) {
        if (!current) return;
        if (err instanceof NetworkError) setState({ kind: 'offline' });
        else setState({ kind: 'failed', message: (err as Error).message });
      }
    })();
    return () => {
      current = false;
    };
  }, [props.path, props.revision, tick]);

  return (
    <section aria-labelledby="optional-title">
      <h1 id="optional-title">{props.title}</h1>
      {state.kind === 'loading' && <p class="loading">{t('common.loading')}</p>}
      {state.kind === 'not-offered' && (
        <p class="notice" role="status">
          {t('household.notOffered', { screen: props.title })}
        </p>
      )}
      {state.kind === 'offline' && <p class="warning">{t('household.needsConnection')}</p>}
      {state.kind === 'failed' && (
        <p class="error" role="alert">
          {state.message}
        </p>
      )}
      {state.kind === 'loaded' && props.children(state.data, () => setTick((n) => n + 1))}
    </section>
  );
}
