// Transpile the podmut component for the browser (no bundler):
//   node scripts/transpile.mjs <podmut.wasm> [outDir=pkg]
// writes <outDir>/podmut.js (+ podmut.core*.wasm) with jco, the browser build of
// @bytecodealliance/preview2-shim under <outDir>/shim/ (the page's import map points the shim's bare
// specifiers there), js-yaml and CodeMirror under <outDir>/vendor/ (every copied module minified
// by esbuild, one file each as before), the exact component bytes as
// <outDir>/podmut.wasm and <outDir>/manifest.json (sha256, sizes, versions).
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { transpileBytes } from '@bytecodealliance/jco-transpile';
import { transform } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '..');
const [componentPath, outArg] = process.argv.slice(2);
if (!componentPath) {
  console.error('usage: node scripts/transpile.mjs <podmut.wasm> [outDir]');
  process.exit(2);
}
const out = resolve(outArg ?? join(web, 'pkg'));
// Packages live in web/node_modules (npm install there); their exports maps hide package.json.
const pkgDir = (name) => join(web, 'node_modules', name);
const version = async (name) => JSON.parse(await readFile(join(pkgDir(name), 'package.json'), 'utf8')).version;

/** [package, its ES module entry, where it goes under vendor/] — index.html's import map names them. */
export const EDITOR_MODULES = [
  ['@codemirror/autocomplete', 'dist/index.js', 'codemirror/autocomplete.js'],
  ['@codemirror/commands', 'dist/index.js', 'codemirror/commands.js'],
  ['@codemirror/lang-yaml', 'dist/index.js', 'codemirror/lang-yaml.js'],
  ['@codemirror/language', 'dist/index.js', 'codemirror/language.js'],
  ['@codemirror/state', 'dist/index.js', 'codemirror/state.js'],
  ['@codemirror/streamparser', 'dist/index.js', 'codemirror/streamparser.js'],
  ['@codemirror/view', 'dist/index.js', 'codemirror/view.js'],
  ['@lezer/common', 'dist/index.js', 'lezer/common.js'],
  ['@lezer/highlight', 'dist/index.js', 'lezer/highlight.js'],
  ['@lezer/lr', 'dist/index.js', 'lezer/lr.js'],
  ['@lezer/yaml', 'dist/index.js', 'lezer/yaml.js'],
  ['@marijn/find-cluster-break', 'src/index.js', 'find-cluster-break.js'],
  ['crelt', 'index.js', 'crelt.js'],
  ['style-mod', 'src/style-mod.js', 'style-mod.js'],
  ['w3c-keyname', 'index.js', 'w3c-keyname.js'],
];

const component = await readFile(componentPath);
const { files, imports } = await transpileBytes(component, {
  name: 'podmut',
  minify: true,
  // Keep the export objects keyed by interface name only (`validate`, `node`, `admission`).
  namespacedExports: false,
  // Keep the core wasm as separate files (fetched + compiled streaming), not base64 in the JS.
  base64Cutoff: 0,
});

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'shim'), { recursive: true });
await mkdir(join(out, 'vendor'), { recursive: true });
const sizes = {};
for (const [name, bytes] of Object.entries(files)) {
  if (name.endsWith('.d.ts')) continue;
  const path = join(out, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
  sizes[name] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}
/**
 * Copy the ES module `from` to `to` minified (esbuild: whitespace, syntax and local names; imports,
 * exports and license comments kept), or as it is when minifying does not make it smaller.
 * The packages ship readable modules; minified, the page's scripts are about half the gzip bytes
 * (BENCHMARKS.md, "Browser download").
 */
async function copyModule(from, to) {
  const source = await readFile(from, 'utf8');
  const { code } = await transform(source, { loader: 'js', format: 'esm', minify: true, sourcefile: from });
  await mkdir(dirname(to), { recursive: true });
  await writeFile(to, code.length < source.length ? code : source);
}
const shimDir = join(pkgDir('@bytecodealliance/preview2-shim'), 'dist', 'browser');
for (const f of await readdir(shimDir)) {
  if (f.endsWith('.js')) await copyModule(join(shimDir, f), join(out, 'shim', f));
}
await copyModule(join(pkgDir('js-yaml'), 'dist', 'js-yaml.mjs'), join(out, 'vendor', 'js-yaml.mjs'));
// The editor: CodeMirror 6's ES modules, one file each, where the page's import map expects them.
for (const [name, entry, dest] of EDITOR_MODULES) {
  await copyModule(join(pkgDir(name), entry), join(out, 'vendor', dest));
}
await writeFile(join(out, 'podmut.wasm'), component);
const manifest = {
  component: {
    sha256: createHash('sha256').update(component).digest('hex'),
    raw: component.length,
    gzip: gzipSync(component, { level: 9 }).length,
  },
  files: sizes,
  imports,
  versions: {
    'jco-transpile': await version('@bytecodealliance/jco-transpile'),
    'preview2-shim': await version('@bytecodealliance/preview2-shim'),
    'js-yaml': await version('js-yaml'),
    esbuild: await version('esbuild'),
    ...Object.fromEntries(await Promise.all(EDITOR_MODULES.map(async ([name]) => [name, await version(name)]))),
  },
};
await writeFile(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`transpiled ${componentPath} (${component.length} bytes) into ${out}`);
console.log(`imports: ${imports.join(', ')}`);
