// A remote agent's view (nb_hitl/widgets/_remote_view.py's RemoteStateView): the server, the
// thread, how the link stands, what the server can do and the thread's state. Drawn by
// remote.js on its own, or inside the memory inspector as its part `remote`.
//
// State: `controls` ({server, thread, link: "connecting" | "connected" | "disconnected" |
// "error", link_text, error, can, state}: every value the server or a person gave, set here
// as text, never parsed as HTML) and `css` (the kernel's stylesheet when shown on its own).
import "../remote.css";
import { h } from "../shared/dom.js";
import { kernelStyle } from "./style.js";

const LINKS = new Set(["connecting", "connected", "disconnected", "error"]);

/** Build the view into `root`; returns `draw(state)`. */
export function remoteView(root) {
  const style = kernelStyle(root);
  const code = (cls) => h("code", { class: cls });
  const fields = {
    server: code("nbh-remote-server"),
    thread: code("nbh-remote-thread"),
    link: h("span", { class: "nbh-remote-link-text" }),
    error: h("span", { class: "nbh-remote-error" }),
    can: h("span", { class: "nbh-remote-can" }),
    state: h("pre", { class: "nbh-remote-state-text", tabindex: 0, "aria-label": "State" }),
  };
  const link = h(
    "div",
    { class: "nbh-remote-link", role: "status", "aria-live": "polite" },
    "link: ",
    fields.link,
    fields.error,
  );
  const box = h(
    "details",
    { class: "nbh-remote", open: true },
    h("summary", {}, h("b", {}, "Remote agent")),
    h("div", {}, "server: ", fields.server),
    h("div", {}, "thread: ", fields.thread),
    link,
    h("div", {}, "server can: ", fields.can),
    h("div", {}, "state:"),
    fields.state,
  );
  root.append(box);
  return (state) => {
    const s = state || {};
    style(s.css);
    const c = s.controls || {};
    for (const key of ["server", "thread", "can", "state"]) {
      const text = String(c[key] ?? "");
      if (fields[key].textContent !== text) fields[key].textContent = text;
    }
    const kind = LINKS.has(c.link) ? c.link : "connecting";
    link.dataset.link = kind;
    fields.link.textContent = String(c.link_text || kind);
    fields.error.textContent = c.error ? `: ${c.error}` : "";
    fields.error.hidden = !c.error;
    box.hidden = !Object.keys(c).length;
  };
}
