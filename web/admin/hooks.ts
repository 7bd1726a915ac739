import { useCallback, useEffect, useState } from 'preact/hooks';
import { useFeedback } from './feedback.ts';
import { errorMessage } from './format.ts';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Loads data when `deps` change; `reload` fetches again. Stale answers are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(errorMessage(err));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);

  return { data, error, loading, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export interface Action {
  busy: boolean;
  error: string | null;
  /** Runs `work` unless another run is in flight; returns true when it succeeded. */
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  clearError: () => void;
}

/**
 * Busy and error state for a button or form that calls the API. An error stays until this
 * action is tried again or a change succeeds anywhere else (an old error is not left standing).
 */
export function useAction(): Action {
  const feedback = useFeedback();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setError(null), [feedback.revision]);
  const run = useCallback(
    async (work: () => Promise<unknown>) => {
      setBusy(true);
      setError(null);
      feedback.clearMessage();
      try {
        await work();
        return true;
      } catch (err) {
        setError(errorMessage(err));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [feedback],
  );
  return { busy, error, run, clearError: useCallback(() => setError(null), []) };
}

/**
 * A form that calls the API: `submit` keeps the page from reloading, runs `work` as `action`
 * (busy, error) and then `done` when it succeeded.
 */
export function useSubmit(work: () => Promise<unknown>, done: () => void) {
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(work).then((ok) => {
      if (ok) done();
    });
  };
  return { action, submit };
}
