import { useEffect, useRef, useState } from 'preact/hooks';
import { locale, t } from '#web/app/i18n.ts';
import type { Messenger, MessagesView } from './messenger.ts';

function useMessages(messenger: Messenger): MessagesView {
  const [view, setView] = useState<MessagesView>(messenger.view);
  useEffect(() => messenger.subscribe(setView), [messenger]);
  return view;
}

const time = (ms: number) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short' }).format(ms);

/** One conversation: the messages (pending ones marked), the "Message" box and "Send". */
function Conversation(props: { messenger: Messenger; view: MessagesView; userId: string }) {
  const { messenger, view, userId } = props;
  const [text, setText] = useState('');
  const end = useRef<HTMLLIElement>(null);
  const member = view.members?.find((m) => m.id === userId);
  const messages = view.conversations[userId] ?? [];
  const pending = view.pending.filter((p) => p.receiverId === userId);
  useEffect(() => void messenger.openConversation(userId), [userId]);
  useEffect(
    () => end.current?.scrollIntoView({ block: 'nearest' }),
    [messages.length, pending.length],
  );

  const submit = (event: Event) => {
    event.preventDefault();
    const body = text.trim();
    if (!body) return;
    setText('');
    void messenger.send(userId, body);
  };
  const name = member?.username ?? '…';
  return (
    <section class="conversation" aria-labelledby="conversation-title">
      <h2 id="conversation-title">{t('household.conversationWith', { name })}</h2>
      <ol class="messages" aria-label={t('household.conversationWith', { name })}>
        {messages.map((m) => (
          <li key={m.id} class={m.senderId === userId ? 'theirs' : 'mine'}>
            <span class="body">{m.body}</span>
            <span class="meta">
              {m.senderUsername} · {time(m.sentAt)}
            </span>
          </li>
        ))}
        {pending.map((p) => (
          <li key={p.id} class="mine pending" data-pending="true">
            <span class="body">{p.body}</span>
            <span class="meta">{t('household.pending')}</span>
          </li>
        ))}
        <li ref={end} class="end" aria-hidden="true" />
      </ol>
      <form class="composer" onSubmit={submit}>
        <label for="message-text">{t('household.message')}</label>
        <textarea
          id="message-text"
          rows={2}
          maxLength={4000}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" class="primary">
          {t('household.send')}
        </button>
      </form>
    </section>
  );
}

/** Messages: the other members (each opens the conversation with them), and the conversation. */
export function MessagesScreen(props: { messenger: Messenger; userId: string | null }) {
  const { messenger } = props;
  const view = useMessages(messenger);
  useEffect(() => void messenger.refreshMembers(), []);
  return (
    // no aria-labelledby: a region named "Messages" would be a second match for the label "Message"
    <section>
      <h1>{t('household.messages')}</h1>
      {view.error && (
        <p class="error" role="alert">
          {view.error}{' '}
          <button type="button" class="link" onClick={messenger.dismissError}>
            {t('household.dismiss')}
          </button>
        </p>
      )}
      <div class="messages-layout">
        <nav aria-label={t('household.members')}>
          <h2>{t('household.members')}</h2>
          {view.members === null && <p>{t('common.loading')}</p>}
          {view.members?.length === 0 && <p>{t('household.noMembers')}</p>}
          <ul class="members">
            {view.members?.map((m) => (
              <li key={m.id}>
                <a
                  href={`#/messages/${encodeURIComponent(m.id)}`}
                  aria-current={props.userId === m.id ? 'page' : undefined}
                >
                  {m.username}
                </a>
                {m.isOnline && <span class="online">{t('household.online')}</span>}
              </li>
            ))}
          </ul>
        </nav>
        {props.userId && <Conversation messenger={messenger} view={view} userId={props.userId} />}
      </div>
    </section>
  );
}
