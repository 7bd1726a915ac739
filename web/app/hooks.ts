import { useEffect, useState } from 'preact/hooks';
import type { Replica, ReplicaView } from '#web/app/stock/replica.ts';

/** The replica's current view, re-rendered on every change. */
export function useReplica(replica: Replica): ReplicaView {
  const [view, setView] = useState<ReplicaView>(() => replica.view());
  useEffect(() => replica.subscribe(setView), [replica]);
  return view;
}

/** The route in the address (`#/stock/item/<id>` → ['stock', 'item', id]), following back and forward. */
export function useRoute(): string[] {
  const read = () => {
    const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
    return parts.length ? parts.map((p) => decodeURIComponent(p)) : ['stock'];
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Busy flag and error text of one action (a form, a button). */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return {
    busy,
    error,
    async run(work: () => Promise<unknown>): Promise<boolean> {
      if (busy) return false;
      setBusy(true);
      setError(null);
      try {
        await work();
        return true;
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

let appName: Promise<string> | null = null;

/** LARDER_APP_NAME, from the manifest the server serves (the service worker keeps the last one). */
export function useAppName(): string {
  const [name, setName] = useState(document.title);
  useEffect(() => {
    appName ??= fetch('/app/manifest.webmanifest')
      .then((response) => response.json() as Promise<{ name?: string }>)
      .then((manifest) => manifest.name || document.title)
      .catch(() => document.title);
    void appName.then((value) => {
      document.title = value;
      setName(value);
    });
  }, []);
  return name;
}
