/** The household app's texts (web/app/), English: the reference for household/*.ts. */
const household = {
  'household.title': 'Household',
  'household.nav': 'Sections',
  'household.stock': 'Stock',
  'household.shopping': 'Shopping list',
  'household.readiness': 'Readiness',
  'household.messages': 'Messages',
  'household.library': 'Library',
  'household.account': 'Account',
  'household.signInTitle': 'Sign in to {app}',
  'household.loadingStock': 'Loading the stock…',
  'household.noInventory': 'Your account has no inventory yet. Ask an administrator to assign one.',
  'household.waiting_one': '{count} change waiting',
  'household.waiting_other': '{count} changes waiting',
  'household.offline': 'offline: changes are kept on this device',
  'household.synced': 'All changes saved',
  'household.syncing': 'Saving…',
  'household.syncFailed': 'The server could not be reached: changes are kept on this device.',
  'household.sessionExpired':
    'Your session has expired. Please sign in again: your changes on this device are kept.',
  'household.useOne': 'Use one {name}',
  'household.addOne': 'Add one {name}',
  'household.emptyStock': 'Nothing in stock yet.',
  'household.expires': 'expires {date}',
  'household.expired': 'expired {date}',
  'household.noLocation': 'No location',
  'household.noCategory': 'No category',
  'household.merged': 'Another change was newer: {fields} kept as it was.',
  'household.rejected': 'Not saved: {reason}',
  'household.dismiss': 'Dismiss',
  'household.signOut': 'Sign out',
  'household.signingOut': 'Signing out…',
  'household.signOutHint':
    'Signing out removes the stock, messages and waiting changes kept on this device.',
  'household.signOutLosesChanges_one':
    '{count} change has not reached the server yet and will be lost.',
  'household.signOutLosesChanges_other':
    '{count} changes have not reached the server yet and will be lost.',
  'household.signedInAs': 'Signed in as {name}',
  'household.signedOut': 'You have signed out. Nothing of your household is left on this device.',
  'household.language': 'Language',
  'household.browserLanguage': 'The browser’s language',
};

export type HouseholdMessages = { readonly [K in keyof typeof household]: string };

export default household satisfies HouseholdMessages;
