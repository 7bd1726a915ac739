import Type from 'typebox';
import { secret, text } from './config.kinds.js';

/**
 * How Larder signs in to NATS and checks the server (read only when LARDER_BUS_URL is set): one
 * way of signing in at most (these, or credentials in the URL), and TLS when a CA or a client
 * certificate is given. docs/operations.md "When to switch to NATS" shows a server set up for it.
 */
export const busVariables = {
  LARDER_BUS_USER: Type.Optional(
    text({
      unset: 'unset',
      description: 'NATS user name (with `LARDER_BUS_PASSWORD`)',
    }),
  ),
  LARDER_BUS_PASSWORD: Type.Optional(
    secret({
      unset: 'unset',
      description: 'NATS password of `LARDER_BUS_USER` (never logged)',
    }),
  ),
  LARDER_BUS_TOKEN: Type.Optional(
    secret({ unset: 'unset', description: 'NATS authorization token (never logged)' }),
  ),
  LARDER_BUS_CREDS_FILE: Type.Optional(
    text({
      unset: 'unset',
      description:
        'a NATS `.creds` file (user JWT and nkey seed, as `nsc` writes it) for a server in operator mode',
    }),
  ),
  LARDER_BUS_NKEY_SEED_FILE: Type.Optional(
    text({
      unset: 'unset',
      description:
        'a file holding the nkey seed (`SU…`) of a NATS user that signs in with its nkey',
    }),
  ),
  LARDER_BUS_TLS_CA: Type.Optional(
    text({
      unset: 'unset: no TLS unless a client certificate is set',
      description:
        "PEM file of the CA that signed the NATS server's certificate: the connection uses TLS and checks the server with it",
    }),
  ),
  LARDER_BUS_TLS_CERT: Type.Optional(
    text({
      unset: 'unset',
      description:
        'PEM client certificate for a NATS server that verifies clients (with `LARDER_BUS_TLS_KEY`; turns TLS on)',
    }),
  ),
  LARDER_BUS_TLS_KEY: Type.Optional(
    text({ unset: 'unset', description: 'PEM private key of `LARDER_BUS_TLS_CERT`' }),
  ),
};
