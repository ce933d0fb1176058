// `node --import ./tools/register.mjs --test ...`: the hooks the tests need (css-hooks.mjs).
import { register } from "node:module";

register("./css-hooks.mjs", import.meta.url);
