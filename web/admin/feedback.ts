import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/**
 * What a change tells the rest of the interface: lists and statistics reload (`revision`), a
 * success message shows, and errors of earlier attempts elsewhere are cleared.
 */
export interface Feedback {
  /** bumped after every change */
  revision: number;
  /** after a change: reload, show `message`, clear old errors */
  changed(message?: string): void;
  /** a new attempt starts: the previous success message goes */
  clearMessage(): void;
}

export const FeedbackContext = createContext<Feedback>({
  revision: 0,
  changed: () => {},
  clearMessage: () => {},
});

export const useFeedback = () => useContext(FeedbackContext);
