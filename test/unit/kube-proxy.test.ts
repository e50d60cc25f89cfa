/**
 * Proxy selection as kubectl makes it (Go's httpproxy rules, proxy-url first): which environment
 * variable applies, NO_PROXY's forms (domain suffixes, IPs, CIDRs, ports, `*`), loopback, and the
 * parsing of proxy values.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseProxyUrl, proxyEnvironment, proxyFromEnvironment, resolveProxy } from '../../src/core/kube/transport/proxy';
import { redactUrl } from '../../src/core/kube/redactUrl';

const P = 'http://proxy.corp:3128';
const via = (server: string, noProxy?: string, extra: NodeJS.ProcessEnv = {}) =>
  proxyFromEnvironment(
    new URL(server),
    proxyEnvironment({ HTTPS_PROXY: P, HTTP_PROXY: 'http://plain.corp:8080', ...(noProxy === undefined ? {} : { NO_PROXY: noProxy }), ...extra }),
  )?.href;

describe('proxy selection (Go httpproxy rules)', () => {
  it('https servers use HTTPS_PROXY, http servers HTTP_PROXY; upper case first, then lower case; empty is unset', () => {
    assert.equal(via('https://api.example.com:6443'), `${P}/`);
    assert.equal(via('http://api.example.com:8080'), 'http://plain.corp:8080/');
    const env = (e: NodeJS.ProcessEnv) => proxyFromEnvironment(new URL('https://api.example.com'), proxyEnvironment(e))?.href;
    assert.equal(env({ https_proxy: 'http://lower:1' }), 'http://lower:1/');
    assert.equal(env({ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:1' }), 'http://upper:1/');
    assert.equal(env({ HTTPS_PROXY: '', https_proxy: 'http://lower:1' }), 'http://lower:1/');
    assert.equal(env({ HTTP_PROXY: 'http://plain:1' }), undefined, 'no fallback from HTTPS_PROXY to HTTP_PROXY');
    assert.equal(env({}), undefined);
  });

  it('never proxies localhost or loopback IPs', () => {
    for (const s of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.8.9.1', 'https://[::1]:6443']) assert.equal(via(s), undefined, s);
    assert.equal(via('https://localhost.example.com'), `${P}/`, 'only the name localhost itself');
  });

  it('NO_PROXY domains: a name matches itself and its subdomains; a leading dot or *. only subdomains', () => {
    assert.equal(via('https://example.com', 'example.com'), undefined);
    assert.equal(via('https://api.example.com', 'example.com'), undefined);
    assert.equal(via('https://notexample.com', 'example.com'), `${P}/`);
    assert.equal(via('https://api.example.com', '.example.com'), undefined);
    assert.equal(via('https://example.com', '.example.com'), `${P}/`);
    assert.equal(via('https://a.b.example.com', '*.example.com'), undefined);
    assert.equal(via('https://example.com', '*.example.com'), `${P}/`);
    assert.equal(via('https://API.Example.COM', ' other.org , EXAMPLE.com '), undefined, 'case and spaces do not matter');
  });

  it('NO_PROXY with ports: only that port; IPs exactly; CIDRs any port; * everything', () => {
    assert.equal(via('https://api.example.com:6443', 'example.com:6443'), undefined);
    assert.equal(via('https://api.example.com:443', 'example.com:6443'), `${P}/`);
    assert.equal(via('https://api.example.com', 'example.com:443'), undefined, 'the default port counts');
    assert.equal(via('https://10.1.2.3:6443', '10.1.2.3'), undefined);
    assert.equal(via('https://10.1.2.3:6443', '10.1.2.3:6443'), undefined);
    assert.equal(via('https://10.1.2.3:6443', '10.1.2.3:443'), `${P}/`);
    assert.equal(via('https://10.1.2.4:6443', '10.1.2.3'), `${P}/`);
    assert.equal(via('https://10.1.2.3:6443', '10.0.0.0/8'), undefined);
    assert.equal(via('https://11.1.2.3:6443', '10.0.0.0/8'), `${P}/`);
    assert.equal(via('https://[fd00::5]:6443', 'fd00::/8'), undefined);
    assert.equal(via('https://[fd00::5]:6443', '[fd00::5]:6443'), undefined);
    assert.equal(via('https://[fd00::5]:6443', 'fd00::5'), undefined);
    assert.equal(via('https://anything.example.org', '*'), undefined);
    assert.equal(via('https://10.1.2.3', 'example.com, :6443, ,'), `${P}/`, 'malformed entries are ignored');
  });

  it('HTTP_PROXY is refused under CGI (REQUEST_METHOD set), as Go refuses it', () => {
    assert.throws(() => via('http://api.example.com', undefined, { REQUEST_METHOD: 'GET' }), /CGI/);
    assert.equal(via('https://api.example.com', undefined, { REQUEST_METHOD: 'GET' }), `${P}/`);
  });

  it('proxy values: a bare host:port means http://; socks5 and https schemes are kept; garbage is an error', () => {
    assert.equal(parseProxyUrl('proxy.corp:3128').href, 'http://proxy.corp:3128/');
    assert.equal(parseProxyUrl('https://proxy.corp').href, 'https://proxy.corp/');
    assert.equal(parseProxyUrl('socks5://127.0.0.1:1080').protocol, 'socks5:');
    assert.throws(() => parseProxyUrl('http://bad host:1'), /invalid proxy address/);
    assert.equal(redactUrl(parseProxyUrl('http://jane:secret@proxy.corp:3128')), 'http://proxy.corp:3128');
    assert.throws(
      () => parseProxyUrl('http://jane:s3cret@[bad'),
      (e: Error) => !e.message.includes('s3cret') && /invalid proxy address "http:\/\/\[bad"/.test(e.message),
    );
  });

  it("the cluster's proxy-url wins over the environment, loopback included", () => {
    const env = proxyEnvironment({ HTTPS_PROXY: P, NO_PROXY: '*' });
    assert.equal(resolveProxy(new URL('https://127.0.0.1:6443'), 'http://cluster-proxy:9', env)?.href, 'http://cluster-proxy:9/');
    assert.equal(resolveProxy(new URL('https://api.example.com'), undefined, env), undefined);
  });
});
