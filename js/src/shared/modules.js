// Where later panels' modules come from: tell the kernel the server's URL for them.
//
// anywidget imports a model's `_esm` from a new blob URL each time it is the module's
// source; an http(s) URL the page imports once, and every later panel of that kind reuses it.
// nb_hitl's Jupyter server extension serves the bundles and names their path in the page's
// config (`nbHitlModules` in JupyterLab's and Notebook 7's `jupyter-config-data`). A panel
// whose module came inline tells the kernel that URL (`{t: "modules", base}`); the kernel gives
// its later panels their module by URL (`nb_hitl/widgets/_modules.py`). Elsewhere (marimo, VS
// Code, Colab, a server without nb_hitl) there is no such config and nothing is sent.

const bases = new WeakMap();

/** The absolute URL the page's server serves the bundles at, or null (read once a page). */
export function modulesBase(doc = document) {
  if (bases.has(doc)) return bases.get(doc);
  let base = null;
  const config = doc.getElementById("jupyter-config-data");
  if (config) {
    try {
      const path = JSON.parse(config.textContent || "{}").nbHitlModules;
      if (typeof path === "string" && path.endsWith("/nb_hitl/static/")) {
        const url = new URL(path, doc.baseURI);
        if (url.protocol === "http:" || url.protocol === "https:") base = url.href;
      }
    } catch {
      base = null; // a page config that is not JSON: stay inline
    }
  }
  bases.set(doc, base);
  return base;
}

const isUrl = (esm) => typeof esm === "string" && /^https?:\/\//.test(esm);

/** Tell the kernel where the bundles are, if `model`'s module came inline and the page knows. */
export function announceModules(model, doc = document) {
  if (isUrl(model.get("_esm"))) return false; // by URL already: the kernel knows
  const base = modulesBase(doc);
  if (!base) return false;
  model.send({ t: "modules", base });
  return true;
}
