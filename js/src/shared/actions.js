// What a panel's page sends the kernel: actions (a click, a key, a slider move) and sync
// requests. The kernel handles both on its own loop (nb_hitl/widgets/_model.py).

/** Ask the kernel for `name` with `args` (a JSON object): `{t: "action", name, args}`. */
export function sendAction(model, name, args = {}) {
  model.send({ t: "action", name, args });
}

/** Tell the kernel which state the page holds: it answers with a snapshot when that is old. */
export function sendSync(model, seq) {
  model.send({ t: "sync", seq });
}
