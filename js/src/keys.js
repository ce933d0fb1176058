// The front end of `KeyBindings` (nb_hitl/widgets/_keys.py): keyboard shortcuts inside one
// widget, its row buttons and Copy buttons, Stop drawn at once, and its liveness banner.
import "./chat/keys.css";

export { default } from "./chat/key_bindings.js";
