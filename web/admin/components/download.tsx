import { useState } from 'preact/hooks';
import type { Vars } from '#src/i18n/translate.ts';
import { downloadWithToken } from '#web/admin/api/client.ts';
import { errorMessage } from '#web/admin/format.ts';
import { t } from '#web/admin/i18n.ts';
import { ConfirmButton } from './ui.tsx';

/** Downloads a file with the session's token; why the last try failed stays in `error`. */
export function useDownload() {
  const [error, setError] = useState<string | null>(null);
  const start = (path: string, filename: string) => {
    setError(null);
    downloadWithToken(path, filename).catch((err) => setError(errorMessage(err)));
  };
  return { error, start };
}

/**
 * The Download and Delete buttons of one catalog entry or backup: `texts` picks their wording,
 * `vars` names the thing in what a screen reader hears and in the question before deleting.
 */
export function DownloadAndDelete(props: {
  texts: 'resources' | 'backups';
  vars: Vars;
  busy: boolean;
  onDownload: () => void;
  onDelete: () => void;
}) {
  return (
    <>
      <button
        type="button"
        onClick={props.onDownload}
        aria-label={t(`${props.texts}.downloadName`, props.vars)}
      >
        {t(`${props.texts}.download`)}
      </button>
      <ConfirmButton
        label={t(`${props.texts}.delete`)}
        question={t(`${props.texts}.deleteQuestion`, props.vars)}
        busy={props.busy}
        onConfirm={props.onDelete}
      />
    </>
  );
}
