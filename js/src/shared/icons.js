// The icons every panel draws, by their Font Awesome 4 names (`<i class="fa fa-NAME">`): nb_hitl's
// own drawings in a 16 x 16 box (strokes unless marked filled), not copied from Font Awesome.
// JupyterLab bundles Font Awesome 4; marimo, VS Code and an offline page have no such font, so
// the panels paint these everywhere (shared/icons.css, made from this file by
// `npm run icons`; a node test keeps the two equal). An icon follows its text's colour.

const F = "fill='black' stroke='none'";
const BODY = "<rect x='3' y='7.2' width='10' height='7' rx='1'/>";

/** Each icon's SVG shapes (inside a 16 x 16 `viewBox`). */
export const ICONS = {
  play: `<path ${F} d='M4 2.2v11.6L13.5 8z'/>`,
  stop: `<rect ${F} x='3' y='3' width='10' height='10' rx='1.2'/>`,
  pause: `<path ${F} d='M3.5 2.5h3.2v11H3.5zM9.3 2.5h3.2v11H9.3z'/>`,
  forward: `<path ${F} d='M1 3v10l7-5zM8 3v10l7-5z'/>`,
  "step-forward": `<path ${F} d='M2.5 2.5v11L10.5 8zM11 2.5h2.5v11H11z'/>`,
  check: "<path d='M2.5 8.5l3.5 3.5 7.5-8'/>",
  "check-double": "<path d='M1 8.5l3 3 6.5-7.5M7 11l.5.5 7.5-8.5'/>",
  times: "<path d='M3.5 3.5l9 9M12.5 3.5l-9 9'/>",
  ban: "<circle cx='8' cy='8' r='5.8'/><path d='M3.9 3.9l8.2 8.2'/>",
  pencil: "<path d='M10.8 2.2l3 3-8.3 8.3-3.8.8.8-3.8zM9 4l3 3'/>",
  undo: "<path d='M2.8 2.5v4h4'/><path d='M3.2 6.3A5.3 5.3 0 1 1 4.5 12'/>",
  redo: "<path d='M13.2 2.5v4h-4'/><path d='M12.8 6.3A5.3 5.3 0 1 0 11.5 12'/>",
  refresh: "<path d='M13.5 2.5v3.8H9.7'/><path d='M13.2 6A5.5 5.5 0 1 0 13.5 9.5'/>",
  repeat:
    "<path d='M2.5 9V7a2.5 2.5 0 0 1 2.5-2.5h8.5M11 2l2.5 2.5L11 7'/><path d='M13.5 7v2A2.5 2.5 0 0 1 11 11.5H2.5M5 9l-2.5 2.5L5 14'/>",
  reply: "<path d='M6.5 3.5L2 8l4.5 4.5M2 8h7.5a4.5 4.5 0 0 1 4.5 4.5v1'/>",
  download: "<path d='M8 1.8v8.4M4.3 6.7L8 10.4l3.7-3.7M2.5 13.8h11'/>",
  eraser: "<path d='M6.2 13.5h7.3M2.3 9.6L8.8 3.1l4.6 4.6-5.8 5.8H6.2zM5.6 6.3l4.6 4.6'/>",
  save: "<path d='M2.5 2.5h8.8l2.2 2.2v8.8h-11zM5 2.5v3.2h5V2.5M5 13.5V9.5h6v4'/>",
  "folder-open": "<path d='M1.8 12.8V3.2h4l1.5 1.5h5.2v2.2M1.8 12.8l2.4-5.6h10.5l-2.4 5.6z'/>",
  "paper-plane": "<path d='M14.5 1.5L1.5 7l5 2.4L9 14.5zM14.5 1.5L6.5 9.4'/>",
  expand:
    "<path d='M2 6V2h4M2 2l4 4M10 2h4v4M14 2l-4 4M14 10v4h-4M14 14l-4-4M6 14H2v-4M2 14l4-4'/>",
  compress:
    "<path d='M6 1.5V6H1.5M1.5 1.5L6 6M10 1.5V6h4.5M14.5 1.5L10 6M14.5 10H10v4.5M14.5 14.5L10 10M1.5 10H6v4.5M1.5 14.5L6 10'/>",
  th: `<path ${F} d='M1.5 1.5h3.6v3.6H1.5zM6.2 1.5h3.6v3.6H6.2zM10.9 1.5h3.6v3.6h-3.6zM1.5 6.2h3.6v3.6H1.5zM6.2 6.2h3.6v3.6H6.2zM10.9 6.2h3.6v3.6h-3.6zM1.5 10.9h3.6v3.6H1.5zM6.2 10.9h3.6v3.6H6.2zM10.9 10.9h3.6v3.6h-3.6z'/>`,
  star: `<path ${F} d='M8 1.2l2 4.3 4.7.6-3.5 3.2.9 4.7L8 11.7 3.9 14l.9-4.7L1.3 6.1l4.7-.6z'/>`,
  "thumb-tack": "<path d='M5 1.8h6M6.3 1.8v4.4L3.8 9h8.4L9.7 6.2V1.8M8 9v5.4'/>",
  "line-chart": "<path d='M1.8 1.8v12.4h12.4M4.3 10.8l3-3.6 2.6 2.2 4-5.2'/>",
  lock: `${BODY}<path d='M5.2 7.2V5a2.8 2.8 0 0 1 5.6 0v2.2'/>`,
  unlock: `${BODY}<path d='M5.2 7.2V5a2.8 2.8 0 0 1 5.5-.8'/>`,
  wrench:
    "<path d='M10.4 1.7a3.6 3.6 0 0 0-3.7 4.8L1.9 11.3a1.4 1.4 0 0 0 0 2l.8.8a1.4 1.4 0 0 0 2 0l4.8-4.8a3.6 3.6 0 0 0 4.8-3.7l-2.2 2.2-2.1-.5-.5-2.1z'/>",
  copy: "<rect x='5.5' y='5' width='8.5' height='9.5' rx='1'/><path d='M3 11.5V2.8a1 1 0 0 1 1-1h7'/>",
};

/** The standalone SVG document of icon `name` (undefined when there is none). */
export function iconSvg(name) {
  const shapes = Object.hasOwn(ICONS, name) ? ICONS[name] : undefined;
  if (shapes === undefined) return undefined;
  return (
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16' fill='none' stroke='black' " +
    `stroke-width='1.6' stroke-linecap='round' stroke-linejoin='round'>${shapes}</svg>`
  );
}

/** The URL-encoded `data:` URL of icon `name`, for a CSS mask. */
function dataUrl(name) {
  const keep = new Set(["/", ":", "=", "'", " "]);
  let out = "";
  for (const ch of iconSvg(name)) {
    out += keep.has(ch) || /[A-Za-z0-9._~-]/.test(ch) ? ch : encodeURIComponent(ch);
  }
  return `data:image/svg+xml,${out}`;
}

/** Where icons are painted: inside a panel, and anywhere under a panel's root in a shadow root
 * (`data-nbh-theme`, marimo), where no Font Awesome is loaded (an agent panel's chat controls). */
const SCOPE = ":is(.nbh-panel, [data-nbh-theme])";

/**
 * The stylesheet that paints `<i class="fa fa-NAME">` inside a panel (`.nbh-panel`) for every
 * icon in `ICONS`: a 1em box filled with the text's colour through the icon's shape (a mask),
 * so an icon follows its button's colour, the theme and the disabled look. Font Awesome's own
 * glyph (JupyterLab's font) is switched off there, so a panel looks the same in every front
 * end. A name without a drawing takes no room, as in a page without the font.
 */
export function iconCss() {
  const names = Object.keys(ICONS);
  const known = names.map((name) => `.fa-${name}`).join(", ");
  const head = [
    "/* Made by `npm run icons` from js/src/shared/icons.js: edit that file, not this one. */",
    `${SCOPE} i.fa {`,
    "  display: inline-block;",
    "  width: 0;",
    "  height: 1em;",
    "  font-style: normal;",
    "  vertical-align: -0.14em;",
    "  pointer-events: none;",
    "}",
    `${SCOPE} i.fa::before {`,
    "  content: none;",
    "}",
    `${SCOPE} i.fa:is(${known}) {`,
    "  width: 1.08em;",
    "  background-color: currentColor;",
    "  -webkit-mask: var(--nbh-icon) center / contain no-repeat;",
    "  mask: var(--nbh-icon) center / contain no-repeat;",
    "}",
    `${SCOPE} button i.fa:is(${known}):not(:last-child) {`,
    "  margin-right: 5px;",
    "}",
  ];
  const rules = names.map(
    (name) => `${SCOPE} i.fa.fa-${name} {\n  --nbh-icon: url("${dataUrl(name)}");\n}`,
  );
  return `${[...head, ...rules].join("\n")}\n`;
}

/** An icon element, `<i class="fa fa-NAME" aria-hidden="true">` (painted by icons.css). */
export function icon(name) {
  const i = document.createElement("i");
  i.className = `fa fa-${String(name).replace(/[^a-z0-9-]/gi, "")}`;
  i.setAttribute("aria-hidden", "true");
  return i;
}
