// The kernel's stylesheet for the parts it renders (nb_hitl._render), when a panel is shown
// on its own; a constant of the package, never model text.
//
// It lives once per page, shared by every panel and never removed: one
// `<style id="nb-hitl-kernel-css">` at the end of the document's body, after every panel
// bundle's stylesheet (anywidget puts those in the head, one per kind of panel, as a kind is
// first shown), so its rules still come last as they did inside each panel; or in the shadow
// root a panel is drawn in (marimo), where the document's rules do not reach. A `<style>` inside each panel cost
// two restyles of the whole page per re-run of a cell: the sheet sets `:root` variables, so
// removing the old panel's sheet and adding the new one's each made the browser recompute
// every element's style (~530-600 elements, 10-24 ms each in JupyterLab: once when the
// output is cleared, before the cell's code is even sent, and once before the new panel's
// first frame).

export const KERNEL_CSS_ID = "nb-hitl-kernel-css";

/** Where `root`'s stylesheets apply from: its shadow root, else its document. */
function styleScope(root) {
  const doc = root.ownerDocument;
  const place = root.getRootNode?.();
  const ShadowRoot = doc?.defaultView?.ShadowRoot;
  if (ShadowRoot && place instanceof ShadowRoot) return place;
  return doc?.body ? doc : null;
}

/** Put `css` in `scope`'s shared kernel stylesheet (made if missing; set if it differs). */
function share(scope, css) {
  const doc = scope.ownerDocument || scope;
  let style = scope.getElementById(KERNEL_CSS_ID);
  if (!style) {
    style = doc.createElement("style");
    style.id = KERNEL_CSS_ID;
    style.textContent = css;
    (scope === doc ? doc.body : scope).append(style);
  } else if (style.textContent !== css) style.textContent = css; // a newer package's
}

/**
 * The `style(css)` of a panel drawn in `root`: puts `css` (`""`: its host has it) in the
 * page's shared kernel stylesheet. Drawn before `root` is in the page (JupyterLab renders a
 * view, then attaches it), the sheet goes to the document at once, and into a shadow
 * root too if `root` lands in one (looked at on the next frames, as `followPageTheme` does).
 */
export function kernelStyle(root) {
  let drawn = null;
  return (css) => {
    if (!css || css === drawn) return;
    drawn = css;
    const scope = styleScope(root);
    if (scope) share(scope, css);
    if (root.isConnected) return;
    const win = root.ownerDocument?.defaultView;
    let tries = 0;
    const look = () => {
      if (drawn !== css) return;
      if (!root.isConnected) {
        if (tries++ < 20) win.requestAnimationFrame(look);
        return;
      }
      const placed = styleScope(root);
      if (placed && placed !== scope) share(placed, css);
    };
    if (win?.requestAnimationFrame) win.requestAnimationFrame(look);
  };
}
