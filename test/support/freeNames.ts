/**
 * The free identifiers of functions' source texts: the names each uses that neither it nor the
 * ECMAScript library defines, so what it needs from wherever it runs. Resolved by TypeScript's own
 * checker (each text is a script of one program, wrapped as an expression so none of its names
 * reaches another), with `provided` declared as globals.
 */
import ts from 'typescript';

export function freeNames(sources: Record<string, string>, provided: readonly string[] = []): Record<string, string[]> {
  const options: ts.CompilerOptions = { noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [], noLib: false };
  const files = new Map(Object.entries(sources).map(([name, text]) => [`/fn/${name}.ts`, `(${text});\n`]));
  files.set('/fn/provided.d.ts', provided.map((n) => `declare var ${n}: any;`).join('\n'));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang) => (files.has(name) ? ts.createSourceFile(name, files.get(name)!, lang) : getSourceFile(name, lang));
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  const program = ts.createProgram([...files.keys()], options, host);
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(sources)) {
    const file = program.getSourceFile(`/fn/${name}.ts`)!;
    const syntax = program.getSyntacticDiagnostics(file);
    if (syntax.length > 0) throw new Error(`${name} does not parse: ${ts.flattenDiagnosticMessageText(syntax[0].messageText, '\n')}`);
    const names = new Set<string>();
    for (const d of program.getSemanticDiagnostics(file)) {
      const m = /^Cannot find name '([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      if (m) names.add(m[1]);
    }
    out[name] = [...names].sort();
  }
  return out;
}
