// Builds the page into ../hotplate/ui/static: app.js and app.css (minified, no source
// maps) and index.html naming them with their content's hash, so a browser's long cache
// of a static file ends when the file does. The output depends on the sources and the
// lockfile only: the same inputs give byte-identical files.

import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "hotplate", "ui", "static");

const common = {
  absWorkingDir: here,
  bundle: true,
  minify: true,
  sourcemap: false,
  legalComments: "eof",
  charset: "utf8",
  write: false,
  logLevel: "warning",
};

const js = await build({
  ...common,
  entryPoints: ["src/main.jsx"],
  format: "iife",
  target: ["es2020"],
  jsx: "automatic",
  jsxImportSource: "preact",
  define: { "process.env.NODE_ENV": '"production"' },
});
const css = await build({ ...common, entryPoints: ["src/app.css"] });

const text = (result) => result.outputFiles[0].text;
const hash = (content) => createHash("sha256").update(content).digest("hex").slice(0, 16);
const appJs = text(js);
const appCss = text(css);
const html = readFileSync(join(here, "src", "index.html"), "utf8")
  .replace("__JS_HASH__", hash(appJs))
  .replace("__CSS_HASH__", hash(appCss));

mkdirSync(out, { recursive: true });
writeFileSync(join(out, "app.js"), appJs);
writeFileSync(join(out, "app.css"), appCss);
writeFileSync(join(out, "index.html"), html);
for (const [name, content] of [["app.js", appJs], ["app.css", appCss], ["index.html", html]]) {
  console.log(`${name} ${Buffer.byteLength(content)} bytes`);
}
