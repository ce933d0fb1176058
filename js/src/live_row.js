// The front end of a streaming row (`LiveMessage`, nb_hitl/widgets/_live_delta.py): a
// snapshot plus deltas (chat/rows.js). Bundled into nb_hitl/widgets/static/live_row.js.
import "./chat/live_row.css";

export { default } from "./chat/live_row.js";
