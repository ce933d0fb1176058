// Copies the kernel's stylesheet (nb_hitl/_render/widgets.css: nb_hitl._render.CSS, which the
// kernel sends itself, not a bundle) into js/kernel-css/ (gitignored), so that `npm run lint`
// lints it with biome, which reads only files under js/. It is linted, not formatted: the
// file is sent to the page as it is (biome.json's override for kernel-css/).
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const into = join(here, "..", "kernel-css");
mkdirSync(into, { recursive: true });
copyFileSync(
  join(here, "..", "..", "nb_hitl", "_render", "widgets.css"),
  join(into, "widgets.css"),
);
