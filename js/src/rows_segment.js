// The front end of a rows segment (`RowsSegment`, nb_hitl/widgets/_segment.py): finished
// message rows kept by key (chat/segment.js). Bundled into nb_hitl/widgets/static/.
import "./chat/rows_segment.css";

export { default } from "./chat/rows_segment.js";
