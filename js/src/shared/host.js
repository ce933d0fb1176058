// The page's theme for a panel drawn in a shadow root. marimo (`mo.ui.anywidget`) draws each
// anywidget inside a shadow root, where the kernel's stylesheet (nb_hitl._render: variables
// on `:root`, dark ones under `body[data-jp-theme-light="false"]`) matches nothing; there the
// panel's root carries the page's theme as `data-nbh-theme="light" | "dark"`, which the same
// stylesheet also styles. In a page's own DOM (JupyterLab, Notebook 7) nothing is set: the
// page's rules already apply.

/** Whether `doc`'s page is dark: marimo's `dark` class, JupyterLab's and VS Code's marks. */
export function pageIsDark(doc) {
  const html = doc.documentElement;
  const body = doc.body;
  return (
    html.classList.contains("dark") ||
    !!body?.classList.contains("dark") ||
    !!body?.classList.contains("vscode-dark") ||
    body?.dataset?.jpThemeLight === "false"
  );
}

/**
 * Keep `root`'s `data-nbh-theme` equal to the page's theme while `el` sits in a shadow root
 * (looked at when the view is drawn, and on the next frames while `el` is not yet attached).
 * Returns a function that stops following it.
 */
export function followPageTheme(el, root) {
  const doc = el.ownerDocument;
  const win = doc?.defaultView;
  if (!win) return () => {};
  let watch = null;
  let frame = null;
  let tries = 0;
  const apply = () => {
    root.dataset.nbhTheme = pageIsDark(doc) ? "dark" : "light";
  };
  const look = () => {
    frame = null;
    const place = el.getRootNode();
    if (place instanceof win.ShadowRoot) {
      apply();
      watch = new win.MutationObserver(apply);
      const marks = { attributes: true, attributeFilter: ["class", "data-jp-theme-light"] };
      watch.observe(doc.documentElement, marks);
      if (doc.body) watch.observe(doc.body, marks);
    } else if (place === el || !el.isConnected) {
      if (tries++ < 20 && win.requestAnimationFrame) frame = win.requestAnimationFrame(look);
    }
  };
  look();
  return () => {
    if (frame !== null) win.cancelAnimationFrame?.(frame);
    watch?.disconnect();
  };
}
