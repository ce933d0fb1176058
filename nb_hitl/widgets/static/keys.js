/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */

// src/chat/keys.js
var INACTIVE = "nb-hitl-inactive";
var STOPPING = "nb-hitl-stopping";
var INACTIVE_STATUS = "● inactive: no kernel behind this panel";
var EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true']";
function matches(ev, b) {
  if (ev.key !== b.key) return false;
  const mod = ev.ctrlKey || ev.metaKey;
  if (!!b.mod !== mod) return false;
  if (!b.mod && (!!b.shift !== ev.shiftKey || ev.altKey)) return false;
  return true;
}
var origin = (ev) => ev.composedPath?.()[0] || ev.target;
function markStopping(scope, rows, stopButton) {
  if (!scope || !rows || scope.classList.contains(INACTIVE)) return 0;
  const button = scope.querySelector(stopButton);
  if (!button || button.disabled) return 0;
  let marked = 0;
  for (const row of scope.querySelectorAll(rows)) {
    if (row.classList.contains(STOPPING)) continue;
    row.classList.add(STOPPING);
    marked += 1;
    const answer = new MutationObserver(() => {
      answer.disconnect();
      row.classList.remove(STOPPING);
    });
    answer.observe(row, { attributes: true, attributeFilter: ["class"] });
  }
  return marked;
}
async function copyText(text) {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
    }
  }
  const box = document.createElement("textarea");
  box.value = text;
  box.setAttribute("readonly", "");
  box.style.position = "fixed";
  box.style.opacity = "0";
  document.body.appendChild(box);
  box.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    done = false;
  }
  box.remove();
  return done;
}
function bindingFor(ev, bindings, scope, inside) {
  for (const b of bindings || []) {
    if (!matches(ev, b)) continue;
    if (!inside && !b.anywhere) continue;
    if (!inside && b.enabled) {
      const needed = scope.querySelector(b.enabled);
      if (!needed || needed.disabled) continue;
    }
    const field = b.within ? origin(ev).closest(b.within) : origin(ev);
    if (!field) continue;
    return { binding: b, field };
  }
  return null;
}
function formValues(card) {
  const form = {};
  for (const field of card.querySelectorAll("input[name], textarea[name], select[name]")) {
    const { name } = field;
    if (field.type === "checkbox" || field.type === "radio") {
      if (!field.checked) continue;
      if (field.type === "checkbox") form[name] = [...form[name] || [], field.value];
      else form[name] = field.value;
    } else form[name] = field.value;
  }
  for (const choice of card.querySelectorAll("[data-nb-hitl-choice][aria-pressed='true']")) {
    const group = choice.dataset.nbHitlChoice;
    form[group] = [...form[group] || [], choice.value];
  }
  return form;
}
function toggleChoice(choice) {
  const on = choice.getAttribute("aria-pressed") !== "true";
  const card = choice.closest("[data-nb-hitl-card]");
  if (on && card && choice.dataset.nbHitlSingle !== void 0) {
    for (const other of card.querySelectorAll("[data-nb-hitl-choice]")) {
      if (other !== choice && other.dataset.nbHitlChoice === choice.dataset.nbHitlChoice)
        setPressed(other, false);
    }
  }
  setPressed(choice, on);
}
function setPressed(choice, on) {
  choice.setAttribute("aria-pressed", on ? "true" : "false");
  choice.classList.toggle("mod-active", on);
  choice.classList.toggle("mod-info", on);
}
var REGIONS = [[".nb-hitl-transcript", { role: "log", "aria-label": "Transcript" }]];
function labelRegions(scope) {
  let all = true;
  for (const [selector, attrs] of REGIONS) {
    const nodes = scope ? scope.querySelectorAll(selector) : [];
    if (!nodes.length) all = false;
    for (const node of nodes) {
      for (const [name, value] of Object.entries(attrs)) {
        if (!node.hasAttribute(name)) node.setAttribute(name, value);
      }
    }
  }
  return all;
}
function goInactive(scope, text) {
  scope.classList.add(INACTIVE);
  for (const node of scope.querySelectorAll("button, textarea, input, select"))
    node.disabled = true;
  for (const status of scope.querySelectorAll(".nb-hitl-status")) {
    status.dataset.state = "inactive";
    status.className = "nb-hitl-status nb-hitl-status-inactive";
    status.textContent = INACTIVE_STATUS;
  }
  const note = document.createElement("div");
  note.className = "nb-hitl-inactive-note";
  note.textContent = text;
  scope.insertBefore(note, scope.firstChild);
}
function areaFocused(area, target, pointed, cell) {
  if (!area) return false;
  if (area.contains(target)) return true;
  if (!pointed || target instanceof Element && target.closest(EDITABLE)) return false;
  return !cell || cell.classList.contains("jp-mod-active");
}

// src/chat/key_bindings.js
function bindKeys(el, io) {
  const { model } = io;
  const setting = (name) => io.setting(name);
  const root = () => el.closest(`.${setting("scope")}`);
  const listeners = [];
  const listen = (type, fn) => {
    window.addEventListener(type, fn, true);
    listeners.push([type, fn]);
  };
  let regions = null;
  if (!labelRegions(root())) {
    regions = new MutationObserver(() => {
      if (labelRegions(root())) regions.disconnect();
    });
    regions.observe(document.body, { childList: true, subtree: true });
    setTimeout(() => regions.disconnect(), 1e4);
  }
  const stopping = () => markStopping(root(), setting("stopping_rows"), setting("stop_button"));
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("stop_button");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    if (scope.contains(origin(ev)) && origin(ev).closest(selector)) stopping();
  });
  const asked = /* @__PURE__ */ new Map();
  const offMessage = io.onMessage((msg) => {
    if (msg && typeof msg.copy === "string" && asked.has(msg.copy)) {
      asked.get(msg.copy)(typeof msg.text === "string" ? msg.text : null);
      asked.delete(msg.copy);
    }
  });
  const fetchText = (id) => new Promise((resolve) => {
    asked.set(id, resolve);
    io.send({ action: "copy", text: id });
    setTimeout(() => {
      if (asked.has(id)) {
        asked.delete(id);
        resolve(null);
      }
    }, 1e4);
  });
  async function copyFetched(id) {
    const text = fetchText(id);
    if (window.isSecureContext && window.ClipboardItem && navigator.clipboard?.write) {
      try {
        const blob = text.then((t) => {
          if (t === null) throw new Error("the kernel did not answer");
          return new Blob([t], { type: "text/plain" });
        });
        await navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
        return true;
      } catch {
      }
    }
    const got = await text;
    return got === null ? false : copyText(got);
  }
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("copy_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const fetched = button.dataset.copyId !== void 0 && button.dataset.copy === void 0;
    const copying = fetched ? copyFetched(button.dataset.copyId) : copyText(button.dataset.copy || "");
    copying.then((done) => {
      button.classList.toggle("nb-hitl-copied", done);
      button.title = done ? "Copied" : "Copy failed: select the text and press Ctrl+C";
      setTimeout(() => {
        button.classList.remove("nb-hitl-copied");
        button.title = "Copy this message";
      }, 1500);
    });
  });
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("action_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button) || button.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const msg = { action: button.dataset.nbHitlAction || "", text: button.dataset.nbHitlArg || "" };
    const card = button.closest("[data-nb-hitl-card]");
    if (card) msg.form = formValues(card);
    io.send(msg);
  });
  listen("click", (ev) => {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Element)) return;
    const choice = origin(ev).closest("[data-nb-hitl-choice]");
    if (!choice || !scope.contains(choice) || choice.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    toggleChoice(choice);
  });
  const panel = () => el.closest(`.${setting("focus_scope") || setting("scope")}`) || root();
  let pointed = false;
  listen("pointerdown", (ev) => {
    const area = panel();
    pointed = !!area && origin(ev) instanceof Node && area.contains(origin(ev));
  });
  listen("keydown", (ev) => {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Node)) return;
    if (scope.classList.contains(INACTIVE) || ev.isComposing) return;
    const inside = scope.contains(origin(ev));
    if (!inside && !areaFocused(panel(), origin(ev), pointed, el.closest(".jp-Cell"))) return;
    const found = bindingFor(ev, setting("bindings"), scope, inside);
    if (!found) return;
    const { binding: b, field } = found;
    const near = b.near ? origin(ev).closest(b.near) || scope : scope;
    ev.preventDefault();
    ev.stopPropagation();
    ev.stopImmediatePropagation();
    if (b.click) {
      const button = near.querySelector(b.click);
      if (button && !button.disabled) button.click();
    }
    if (b.action && b.action === setting("stop_action")) stopping();
    if (b.action) {
      const sel = "textarea, input";
      const box = field.matches(sel) ? field : field.querySelector(sel);
      const text = box ? box.value : "";
      io.send({ action: b.action, text });
      if (b.clear && box && text.trim()) {
        box.value = "";
        box.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
  });
  let inactive = false;
  function offline() {
    if (inactive) return;
    const scope = el.closest(`.${setting("inactive_scope")}`) || root();
    if (!scope) return;
    inactive = true;
    goInactive(scope, setting("inactive_text"));
  }
  if (setting("inactive_scope")) model.on?.("comm_live_update", offline);
  const wm = model.widget_manager;
  const kernelOf = () => {
    try {
      return wm?.kernel;
    } catch {
      return void 0;
    }
  };
  const firstId = kernelOf()?.id;
  const timer = firstId && setting("inactive_scope") ? setInterval(() => {
    const k = kernelOf();
    if (!k || k.isDisposed || k.id !== firstId || k.status === "dead") offline();
  }, 1e3) : null;
  return () => {
    for (const [type, fn] of listeners) window.removeEventListener(type, fn, true);
    regions?.disconnect();
    if (timer) clearInterval(timer);
    model.off?.("comm_live_update", offline);
    offMessage?.();
  };
}
function render({ model, el }) {
  el.classList.add("nb-hitl-keys");
  el.style.display = "none";
  const onMessage = (fn) => {
    model.on("msg:custom", fn);
    return () => model.off?.("msg:custom", fn);
  };
  const setting = (name) => model.get(name);
  return bindKeys(el, { model, setting, send: (msg) => model.send(msg), onMessage });
}
var key_bindings_default = { render };
export {
  key_bindings_default as default
};
