"""The app's one stylesheet: the CSS classes of every token display, lesson panel and note, and the
few rules that make Streamlit's own columns and multiselect chips wrap rather than clip at narrow
widths; injected once per page by explorer.ui.common.frame.page.

What it does not do: hold colours that are data (a token's background by position stays inline).
"""

# Streamlit's columns wrap onto the next line rather than squeeze a widget below 13rem (at 800 px
# with the sidebar open, the main area is under 500 px wide), and a multiselect's chips wrap their
# long labels rather than end them in "...": wrap, never clip. Its box grows with its chips: Streamlit
# caps it near four rows and scrolls the rest, which hid the first chips on a phone.
# Compare's live columns are one grid (explorer.ui.compare.live_columns): three on a row at most,
# fewer when a column would be under 13rem, as Streamlit's columns do above.
# The Merge history's panels of one step are one element in two rows (explorer.views.merge_views.
# step_panels_html), each row wrapping as Streamlit's columns do above.
# A fragment's "drawn" signal (explorer.ui.common.drawn) is an empty element: hidden, so that it
# adds no gap under its fragment.
# Markup carries classes only; colours that depend on a token's position come inline. A line of
# text (`compare.html.line_html`) draws one `.token-spans` block per run of touching tokens: inside a
# line they flow inline and wrap between tokens. A group of tokens that share one character
# (`.tok-group`) is one box: its tokens and its "=녕" label go to the next line together, and wrap
# between its tokens (`<wbr>`, explorer.drawing.token_html) only when the group is wider than its
# line (👍🏽 as eight byte tokens in a column a third of the page wide, or on a phone); its margin
# keeps its outline off the lines above and below.
# A token box as tall as its line (`.mono-tok`, a token of `.compare-line`) keeps 2px above and
# below, so that the outline of a just-merged one (2px) does not cover the line or the table row
# next to it; the step-by-step table's pieces wrap between tokens rather than run past the screen.
# A box that scrolls (a wide table on a phone) takes the keyboard's focus
# (explorer.drawing.token_html.scroll_region) and shows it with a ring in the theme's primary
# colour (.streamlit/config.toml). Grey text is at least #666: 5.7:1 on white (WCAG AA).
# A large sample's first lines (`.sample-preview`) stand where the text area would, as tall
# (explorer.ui.train.corpus_input.AREA_HEIGHT).
STYLESHEET = """
.stHorizontalBlock{flex-wrap:wrap;}
[class*="-drawn-signal"]{display:none;}
.stColumn{min-width:min(100%,13rem);}
.stElementContainer:has(.player-placeholder):has(~ .stElementContainer .player){display:none;}
.player-placeholder{font-size:0.875rem;opacity:0.75;margin:0.25rem 0;}
.stColumn:has([data-testid="stMetric"]){min-width:min(100%,9.5rem);}
.stMultiSelect [data-testid="stMultiSelectTagsContainer"]{flex-wrap:wrap;overflow:visible;
  mask-image:none;}
.stMultiSelect div:has(> [data-testid="stMultiSelectTagsContainer"]){max-height:none;}
.stMultiSelect [data-tag]{height:auto;max-width:100%;}
.stMultiSelect [data-tag] > span[title]{white-space:normal;overflow:visible;text-overflow:clip;
  overflow-wrap:anywhere;}
.token-spans{line-height:1.9;white-space:pre-wrap;}
.tok{color:#111;border-radius:3px;padding:0 1px;margin:0 1px;}
.tok-id{display:inline-block;font-size:0.68em;color:#555;vertical-align:sub;margin-left:2px;font-family:ui-monospace,monospace;}
.tok-special{outline:1px solid #555;font-weight:600;}
.tok-new{outline:2px solid #d1495b;outline-offset:0;font-weight:700;background:#ffd6a5 !important;}
.tok-unk{background:#fff;border:1.5px dashed #b00020;color:#b00020;padding:0 3px;font-weight:600;}
.tok-unk-source{font-weight:400;color:#333;}
.tok-dropped{background:#fff;border:1.5px dashed #b00020;color:#b00020;padding:0 3px;font-size:0.9em;}
.tok-group{display:inline-block;max-width:100%;outline:1px dashed #666;outline-offset:1px;border-radius:3px;
  margin:2px 3px;}
.tok-group .tok{white-space:nowrap;}
.tok-group-label{font-size:0.85em;color:#222;background:#eef0f3;border-radius:3px;padding:0 3px;
  margin-left:2px;}
.mono-tok{display:inline-block;border-radius:3px;padding:1px 2px;margin:2px 1px;
  font-family:ui-monospace,monospace;}
.mono-tok.later{opacity:0.45;}
.muted{color:#666;}
.small{font-size:0.85em;}
.top-words{line-height:2.1;}
.word-card{display:inline-block;margin:3px 8px 3px 0;padding:2px 4px;border:1px solid #e3e3e3;
  border-radius:4px;max-width:100%;overflow-wrap:anywhere;}
.word-count{margin-left:4px;}
.step-sentence{margin:4px 0 10px 0;line-height:2.1;}
.merge-tree{line-height:1.7;font-size:0.95em;}
.compare-line .token-spans{display:inline;}
.compare-line .tok{display:inline-block;margin:2px 1px;}
.compare-line .gap{color:#bbb;padding:0 2px;}
.compare-line{line-height:1.9;}
.compare-sentence{margin-bottom:0.8em;}
.count-note{color:#666;font-size:0.8em;}
.boundary-diff{line-height:1.5;margin-bottom:10px;}
.boundary-diff .diff-seg{display:inline-block;vertical-align:top;margin:0 0 6px 0;}
.boundary-diff .diff-cell{display:block;padding:1px 1px 1px 0;white-space:pre;color:#111;
  font-family:ui-monospace,monospace;border-left:3px solid transparent;}
.boundary-diff .cut{border-left-color:#444;}
.boundary-diff .cut-only{border-left-color:#d1495b;box-shadow:inset 2px 0 0 #d1495b;}
.boundary-diff .uncovered{color:#bbb;background:transparent !important;}
.boundary-diff .dropped{color:#b00020;background:transparent !important;outline:1.5px dashed #b00020;
  outline-offset:-2px;}
.boundary-diff .split-char{text-decoration:underline dotted #d1495b;}
.diff-legend{font-size:0.875rem;color:#555;margin-bottom:6px;}
.diff-key-shared{border-left:3px solid #444;padding-left:3px;}
.diff-key-only{border-left:3px solid #d1495b;padding-left:3px;}
.column-head{margin-bottom:4px;}
.live-columns{display:grid;gap:1.25rem 2rem;
  grid-template-columns:repeat(auto-fill,minmax(min(100%,max(13rem,calc((100% - 4rem) / 3))),1fr));}
.live-column{min-width:0;overflow-wrap:anywhere;}
.figures-table{overflow-x:auto;}
.figures-table:focus-visible,.lattice-wrap:focus-visible{outline:2px solid #bf3c4f;outline-offset:2px;}
.figures-table table{border-collapse:collapse;width:100%;font-size:0.875rem;}
.figures-table th,.figures-table td{padding:0.25rem 0.5rem;border-bottom:1px solid rgba(49,51,63,0.1);}
.figures-table thead th{text-align:right;font-weight:600;vertical-align:bottom;cursor:help;}
.figures-table thead th:first-child,.figures-table tbody th{text-align:left;}
.figures-table tbody th{font-weight:400;overflow-wrap:anywhere;min-width:7rem;}
.figures-table td{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums;}
.figures-table td.token{text-align:left;white-space:pre;font-family:ui-monospace,monospace;}
.partings thead th{cursor:auto;}
.figures-table tr>:first-child{position:sticky;left:0;background:var(--st-background-color,#fff);}
.candidates tbody th{min-width:0;white-space:nowrap;}
.candidates thead th.text{text-align:left;}
.candidates tr.chosen td,.candidates tr.chosen th{background:#fff1e0;font-weight:600;}
.figures-table td.audit-text{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:16rem;}
.figures-table thead th.audit-text{text-align:left;}
.audit-table{max-height:28rem;overflow-y:auto;margin-bottom:0.75rem;}
.audit-table thead th{position:sticky;top:0;background:var(--st-background-color,#fff);}
.audit-unused{line-height:1.9;overflow-wrap:anywhere;}
.audit-consumer{display:inline-block;max-width:100%;}
.column-error{margin-top:0.5rem;padding:0.75rem 1rem;border-radius:0.5rem;background:rgba(255,43,43,0.09);
  color:#7d353b;font-size:0.9rem;}
.column-count{margin:0.4rem 0 0.3rem;}
.column-count b{font-size:1.75rem;font-weight:400;margin-left:0.4rem;}
.tok-rest{background:#fff;border:1px dotted #999;color:#777;padding:0 2px;}
.encode-steps{line-height:2.0;}
.steps-head{margin-bottom:6px;}
.steps-head .lost{color:#b00020;}
.steps-pre-token{margin:4px 0;}
.steps-pre-token summary{cursor:pointer;}
.steps-table{border-collapse:collapse;margin:2px 0 8px 18px;font-size:0.92em;}
.steps-table td{padding:1px 8px;vertical-align:top;border-bottom:1px solid #f0f0f0;overflow-wrap:anywhere;}
.why{background:#f6f8fa;border-left:4px solid #d1495b;padding:6px 10px;margin:6px 0;border-radius:3px;}
.step-row{display:flex;flex-wrap:wrap;gap:0 2rem;margin-top:0.75rem;}
.step-wide{flex:3 1 min(100%,20rem);min-width:0;}
.step-narrow{flex:2 1 min(100%,13rem);min-width:0;}
.round-summary{font-size:1.02em;padding:2px 0 6px 0;}
.lattice-wrap{overflow-x:auto;}
.lattice{border-collapse:separate;border-spacing:2px;font-family:ui-monospace,monospace;}
.lattice th.lat-char{padding:2px 6px;background:#eef0f3;text-align:center;font-weight:600;}
.lattice td.lat-edge{padding:1px 4px;background:#dfe7fd;border:1px solid #c5d0ee;border-radius:3px;
  text-align:center;white-space:nowrap;font-size:0.9em;}
.lattice td.lat-best{background:#ffd6a5;border:2px solid #d1495b;font-weight:700;}
.lattice td.lat-unk{background:#fff;border:1.5px dashed #b00020;color:#b00020;}
.lat-score{display:block;font-size:0.75em;color:#555;font-weight:400;}
.run-card{font-size:0.9em;line-height:1.5;}
.note{color:#666;font-size:0.875rem;}
.chart-title{font-weight:600;margin-bottom:-4px;overflow-wrap:anywhere;}
.competition{margin:0;}
.competition .chart-title{margin-bottom:6px;}
.competition .bars{list-style:none;margin:0;padding:0;}
.competition .bar{margin:0 0 3px 0;padding:2px 6px;border-radius:3px;overflow-wrap:anywhere;
  background:linear-gradient(to right,#8fb8de var(--share),#f1f4f8 var(--share));}
.competition .bar.winner{background:linear-gradient(to right,#f0a58c var(--share),#f1f4f8 var(--share));
  font-weight:600;box-shadow:inset 3px 0 0 #e4572e;}
.competition .bar-rank{color:#333;font-variant-numeric:tabular-nums;}
.competition .bar-value{float:right;padding-left:1em;font-variant-numeric:tabular-nums;}
.bars-unit{color:#555;font-size:0.85em;margin-top:2px;}
.result-title{font-weight:600;}
.sample-preview{height:220px;margin:0;padding:0.75rem 1rem;overflow:auto;white-space:pre;border-radius:0.5rem;
  background:#f0f2f6;color:#111318;font-family:ui-monospace,monospace;font-size:0.85rem;line-height:1.5;}
.token-legend td:first-child{padding:0 0.6em;}
"""
