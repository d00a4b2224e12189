/** The page's inline CSS (no font or image is fetched: system sans-serif). */
export const PAGE_STYLE = `
html { scroll-padding-top: 56px; }
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; margin: 24px auto; padding: 0 24px; color: #222; max-width: 1280px; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.4em; }
nav { position: sticky; top: 0; background: #fff; padding: 6px 0; border-bottom: 1px solid #eee; z-index: 2; font-size: 0.9em; }
nav a { color: #0062a0; text-decoration: none; } nav a:hover { text-decoration: underline; }
.warning { color: #b00020; font-weight: bold; border: 2px solid #b00020; padding: 8px 12px; margin: 8px 0; }
.note { color: #555; font-size: 0.9em; } .strong { font-weight: bold; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; } th { background: #f2f2f2; }
td.right { text-align: right; font-variant-numeric: tabular-nums; } td.left { text-align: left; }
table.sortable th button { all: unset; cursor: pointer; display: block; width: 100%; }
table.sortable th button::after { content: " \\2195"; color: #999; }
table.sortable th[aria-sort="ascending"] button::after { content: " \\25B2"; color: #222; }
table.sortable th[aria-sort="descending"] button::after { content: " \\25BC"; color: #222; }
table.sortable th button:focus-visible { outline: 2px solid #0072B2; }
figure.chart { margin: 16px 0; border: 1px solid #ddd; padding: 8px 12px; background: #fff; }
figcaption .subtitle { color: #555; font-size: 0.85em; }
.canvas-box { position: relative; height: 400px; margin-top: 8px; }
.chart-tools { font-size: 0.85em; color: #555; margin-top: 4px; }
.chart-tools button { font: inherit; margin-right: 8px; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 0 16px; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; } dt { font-weight: bold; } dd { margin: 0; }
details > summary { cursor: pointer; } details > summary > h2, details > summary > h3 { display: inline; }
#mb-tooltip { position: absolute; pointer-events: none; background: rgba(255,255,255,0.97); border: 1px solid #888; border-radius: 4px;
  padding: 6px 8px; font-size: 0.85em; box-shadow: 0 2px 6px rgba(0,0,0,0.2); z-index: 5; white-space: nowrap; }
#mb-tooltip .title { font-weight: bold; margin-bottom: 2px; }
#mb-tooltip .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; vertical-align: middle; }
`;
