/**
 * The address of one object's read-only YAML document: a `kubeloop:` URI whose path names the
 * context, type, namespace and object. No 'vscode' import: the glue passes the path to Uri.from.
 *
 *   kubeloop:/<context>/<group or _>/<version>/<resource>/<namespace or _>/<name>.yaml
 *
 * `_` stands for the core group and for "cluster-scoped": neither a group (DNS subdomain) nor a
 * namespace (DNS label) can be `_`. Each segment is percent-escaped for the characters that would
 * change the URI's structure (`%`, `/`, `?`, `#`, `\`) and control characters; everything else is
 * kept as it is, so the editor tab reads the object's real name (`web-0.yaml`). Names such as
 * `<img src=x onerror=alert(1)>` stay plain text in the tab and the document.
 */
export const YAML_SCHEME = 'kubeloop';

export interface ObjectAddress {
  context: string;
  group: string;
  version: string;
  resource: string;
  /** Undefined for a cluster-scoped object. */
  namespace?: string;
  name: string;
}

const CORE = '_';

/** One path segment of a document address: `%`, `/`, `?`, `#`, `\\` and control characters percent-escaped, so any name round-trips. */
export function escapePathSegment(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[%/?#\\\u0000-\u001f\u007f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The `count` decoded segments of an absolute path `/a/b/...`, or undefined when it has another number or one does not decode. */
export function pathSegments(path: string, count: number): string[] | undefined {
  const parts = path.split('/');
  if (parts.length !== count + 1 || parts[0] !== '') return undefined;
  try {
    return parts.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

export function addressToPath(a: ObjectAddress): string {
  return `/${[a.context, a.group || CORE, a.version, a.resource, a.namespace ?? CORE, `${a.name}.yaml`].map(escapePathSegment).join('/')}`;
}

/** The address a path names, or undefined when the path is not one of ours. */
export function pathToAddress(path: string): ObjectAddress | undefined {
  const seg = pathSegments(path, 6);
  if (!seg) return undefined;
  const [context, group, version, resource, namespace, file] = seg as [string, string, string, string, string, string];
  if (!context || !version || !resource || !file.endsWith('.yaml') || file.length <= 5) return undefined;
  return {
    context,
    group: group === CORE ? '' : group,
    version,
    resource,
    ...(namespace === CORE ? {} : { namespace }),
    name: file.slice(0, -5),
  };
}
