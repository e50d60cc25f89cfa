import * as https from 'node:https';
import * as tls from 'node:tls';

type TlsMaterial = Pick<https.AgentOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase'>;

/**
 * Agent options with one TLS context shared by every connection the agent opens. Without it Node
 * builds a context per connection (parsing the CA and the client key each time): a sync loop
 * opening 70 watches at once spent ~40 ms of the host's thread on that alone. The other options
 * (rejectUnauthorized, servername) stay per connection, as before. Material the context cannot be
 * built from is left to the connection, which then fails with Node's own error, as it did before.
 */
export function withSharedContext<T extends TlsMaterial>(options: T): T & { secureContext?: tls.SecureContext } {
  try {
    const material: tls.SecureContextOptions = {};
    if (options.ca !== undefined) material.ca = options.ca;
    if (options.cert !== undefined) material.cert = options.cert;
    if (options.key !== undefined) material.key = options.key as tls.SecureContextOptions['key'];
    if (options.pfx !== undefined) material.pfx = options.pfx as tls.SecureContextOptions['pfx'];
    if (options.passphrase !== undefined) material.passphrase = options.passphrase;
    return { ...options, secureContext: tls.createSecureContext(material) };
  } catch {
    return options;
  }
}
