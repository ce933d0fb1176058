// `npm run icons`: writes src/shared/icons.css from src/shared/icons.js (`iconCss()`); with
// `--check`, fails when the committed file differs (the node tests check it too).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { iconCss } from "../src/shared/icons.js";

const path = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "shared", "icons.css");
if (process.argv.includes("--check")) {
  if (readFileSync(path, "utf8") !== iconCss()) {
    console.error("src/shared/icons.css differs from icons.js: run `npm run icons`");
    process.exit(1);
  }
} else {
  writeFileSync(path, iconCss());
}
