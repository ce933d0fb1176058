// The kernel's stylesheet for the parts it renders (nb_hitl._render), when a panel is shown
// on its own; a constant of the package, never model text.
export function kernelStyle(root) {
  const style = document.createElement("style");
  root.prepend(style);
  let drawn = null;
  return (css) => {
    if (css === drawn) return;
    style.textContent = css || "";
    drawn = css;
  };
}
