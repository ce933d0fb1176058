// Bundles each panel entry js/src/<panel>.js (and the CSS it imports) into
// nb_hitl/widgets/static/<panel>.js (+ .css): the files anywidget loads (`_esm`/`_css`).
// `node build.mjs --check` builds in memory and fails when the committed files differ (or
// when static/ holds a file no entry makes): the bundles in git never drift from the source.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const out = join(here, "..", "nb_hitl", "widgets", "static");
const check = process.argv.includes("--check");

const entries = readdirSync(src)
  .filter((name) => name.endsWith(".js"))
  .sort()
  .map((name) => join(src, name));

const BANNER = "/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */";

const result = await esbuild.build({
  entryPoints: entries,
  bundle: true,
  format: "esm",
  target: "es2020",
  outdir: out,
  write: false,
  legalComments: "none",
  charset: "utf8",
  banner: { js: BANNER, css: BANNER },
  logLevel: "warning",
});

const wanted = new Map(result.outputFiles.map((file) => [basename(file.path), file.text]));
if (check) {
  const problems = [];
  for (const [name, text] of wanted) {
    const path = join(out, name);
    if (!existsSync(path)) problems.push(`missing: ${relative(process.cwd(), path)}`);
    else if (readFileSync(path, "utf8") !== text)
      problems.push(`differs: ${relative(process.cwd(), path)}`);
  }
  const present = existsSync(out) ? readdirSync(out).filter((n) => /\.(js|css)$/.test(n)) : [];
  for (const name of present) if (!wanted.has(name)) problems.push(`no source makes: ${name}`);
  if (problems.length) {
    console.error("The committed bundles differ from a fresh build (run `npm run build` in js/):");
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`bundles up to date (${wanted.size} files)`);
} else {
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(out))
    if (/\.(js|css)$/.test(name) && !wanted.has(name)) rmSync(join(out, name));
  for (const [name, text] of wanted) writeFileSync(join(out, name), text);
  console.log(`built ${wanted.size} files into ${relative(process.cwd(), out)}`);
}
