/**
 * URLs for messages, without their credentials. A proxy-url (`http://user:password@proxy:3128`), an
 * HTTPS_PROXY value or a server address may carry user info, and messages go to places a secret
 * must not: the output channel, stderr, status-bar tooltips, bug reports pasted from them.
 *
 * Guarantees:
 * - `redactUrl` drops the user info (user name and password: either may be the secret, e.g. a token
 *   as the user name) of one URL, given with or without a scheme (`user:pw@proxy:3128` is a proxy
 *   value too); everything else of the text is kept as written, so the address stays recognisable.
 * - `redactUrlsIn` does the same for every `scheme://user-info@` inside free text (a message of a
 *   library that quotes a URL it was given).
 * - Neither throws, whatever the input.
 */

// A password may hold an unescaped '@': the user info runs to the last '@' before the path.
const LEADING_USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)?[^/?#\s]*@/i;
const USER_INFO_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'<>]*@/gi;

/** One URL (a string as written, or a URL) without user name and password. */
export function redactUrl(u: string | URL): string {
  if (typeof u !== 'string') return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}${u.search}`;
  return u.replace(LEADING_USER_INFO, (_m, scheme: string | undefined) => scheme ?? '');
}

/** Free text with the user info of every scheme://...@ URL in it removed. */
export function redactUrlsIn(text: string): string {
  return text.replace(USER_INFO_IN_TEXT, '$1');
}
