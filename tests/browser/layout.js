// What a person sees, measured in the browser: returns {overflow, overlap, cut, hidden, table, diff},
// each a list of short descriptions of what is wrong (empty lists: nothing). Read by
// tests/browser/test_layout.py.
//
// Elements inside a component's open shadow root (Compare's counts table) are measured too.
// overflow: an element whose visible box reaches past the viewport's right edge, unless a
//   horizontally scrollable container (overflow-x auto/scroll, other than the app's own page
//   scrollers) holds it. Its visible box is its box cut by every ancestor that clips.
// overlap: two token boxes (a token, a group of tokens sharing a character, a diff segment)
//   drawing over each other, outlines included: every box against every other on the page, in
//   every panel and table (a token is not compared with the group that holds it).
// cut: text that does not fit its box: an element that clips (overflow not visible, or an
//   ellipsis) whose scroll width is wider than its box; a Plotly title or axis title past its chart.
// hidden: a multiselect's chip not wholly inside the visible box of its field (scrolled away); a
//   button outside the visible part of a box that scrolls sideways (inside shadow roots too).
// table: a data frame whose box is not wholly in the viewport, or that scrolls sideways without its
//   first column in view once scrolled to the end (the column naming each row must stay pinned);
//   the same for an HTML table of figures (.figures-table).
// diff: a boundary-diff segment whose two cells are not one above the other, left edges aligned.
async () => {
  const viewportWidth = document.documentElement.clientWidth;
  const problems = { overflow: [], overlap: [], cut: [], hidden: [], table: [], diff: [] };
  const PAGE_SCROLLERS = '[data-testid="stMain"], [data-testid="stAppViewContainer"], '
    + '[data-testid="stSidebarContent"], [data-testid="stSidebar"], [data-testid="stApp"], body, html';
  const SKIP = '[data-testid="stDataFrame"], [data-testid="stTable"] .glide, .js-plotly-plot, '
    + '[data-testid="stTooltipContent"], [role="tooltip"], [data-baseweb="popover"], script, style';

  const describe = (el) => {
    const cls = typeof el.className === 'string' ? el.className : (el.className?.baseVal ?? '');
    const testid = el.dataset?.testid ? `[${el.dataset.testid}]` : '';
    const classes = cls.trim() ? '.' + cls.trim().split(/\s+/).slice(0, 3).join('.') : '';
    const text = (el.innerText ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 50);
    return `${el.tagName.toLowerCase()}${testid}${classes} "${text}"`;
  };
  const shown = (el) => {
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none' && parseFloat(style.opacity) > 0.05;
  };
  const scrollsX = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const clipsX = (el) => getComputedStyle(el).overflowX !== 'visible';

  // Every element (inside open shadow roots too), and an element's parent across that boundary.
  const everything = (from) => [...from.querySelectorAll('*')].flatMap(
    (el) => (el.shadowRoot ? [el, ...everything(el.shadowRoot)] : [el]));
  const parentOf = (el) => el.parentElement ?? (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);

  // ------------------------------------------------------------ overflow past the right edge
  const root = document.querySelector('[data-testid="stApp"]');
  const elements = everything(root);
  const reported = new Set();
  for (const el of elements) {
    const box = el.getBoundingClientRect();
    if (box.width < 1 || box.height < 1 || box.right <= viewportWidth + 1) continue;
    if (el.closest(SKIP) && !el.matches('.js-plotly-plot')) continue;
    if (!shown(el)) continue;
    let right = box.right;
    let held = false;
    for (let up = parentOf(el); up && up !== document.documentElement; up = parentOf(up)) {
      if (up.matches(PAGE_SCROLLERS)) {
        if (up.matches('[data-testid="stSidebar"]') && up.getBoundingClientRect().width < 2) held = true;
        continue;
      }
      if (scrollsX(up)) { held = true; break; }
      if (clipsX(up)) right = Math.min(right, up.getBoundingClientRect().right);
    }
    if (held || right <= viewportWidth + 1) continue;
    // report the outermost element only (its children overflow with it)
    let parentReported = false;
    for (let up = parentOf(el); up; up = parentOf(up)) if (reported.has(up)) { parentReported = true; break; }
    reported.add(el);
    if (!parentReported) problems.overflow.push(`${describe(el)} ends at x=${Math.round(right)} > ${viewportWidth}`);
  }

  // ------------------------------------------------------------ token boxes overlapping
  const outlined = (el) => {
    const style = getComputedStyle(el);
    const extra = style.outlineStyle !== 'none'
      ? Math.max(0, parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset)) : 0;
    return [...el.getClientRects()].filter((r) => r.width > 0 && r.height > 0).map((r) => ({
      left: r.left - extra, right: r.right + extra, top: r.top - extra, bottom: r.bottom + extra,
    }));
  };
  // Every box against every other (not only neighbours in document order: a token can be drawn over one
  // that is far from it in the markup, in another cell or another line). Their rectangles sorted by
  // top, each compared with those that start above its bottom: a line of tokens against its own line.
  const boxes = [...root.querySelectorAll('.tok, .tok-group, .boundary-diff .diff-seg')].filter(shown);
  const overlaps = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const rects = boxes.flatMap((el, index) => outlined(el).map((r) => ({ ...r, index })))
    .sort((a, b) => a.top - b.top);
  const pairs = new Set();
  for (let i = 0; i < rects.length; i++) {
    const a = rects[i];
    for (let j = i + 1; j < rects.length && rects[j].top < a.bottom - 0.5; j++) {
      const b = rects[j];
      if (a.index === b.index || !overlaps(a, b)) continue;
      const [first, second] = a.index < b.index ? [a.index, b.index] : [b.index, a.index];
      const key = `${first} ${second}`;
      if (pairs.has(key)) continue;
      pairs.add(key);
      if (boxes[first].contains(boxes[second])) continue;  // a token in its group
      const wide = Math.round(Math.min(a.right, b.right) - Math.max(a.left, b.left));
      const high = Math.round(Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
      problems.overlap.push(`${describe(boxes[first])} overlaps ${describe(boxes[second])} by ${wide} x ${high} px`);
    }
  }

  // ------------------------------------------------------------ text cut
  for (const el of elements) {
    if (el.closest(SKIP) || !shown(el)) continue;
    const style = getComputedStyle(el);
    const clips = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
    if (!clips || scrollsX(el) || el.matches(PAGE_SCROLLERS)) continue;
    if (el.clientWidth <= 1 || el.scrollWidth <= el.clientWidth + 1) continue;
    if (!(el.innerText ?? '').trim()) continue;
    problems.cut.push(`${describe(el)}: text ${el.scrollWidth}px wide in a box of ${el.clientWidth}px`);
  }
  for (const chart of root.querySelectorAll('.js-plotly-plot')) {
    const svg = chart.querySelector('svg.main-svg');
    if (!svg) continue;
    const frame = svg.getBoundingClientRect();
    for (const title of chart.querySelectorAll('.gtitle, .g-xtitle text, .g-ytitle text, .legendtitletext')) {
      const box = title.getBoundingClientRect();
      if (box.width < 1) continue;
      if (box.left < frame.left - 1 || box.right > frame.right + 1) {
        problems.cut.push(`chart title "${title.textContent.slice(0, 60)}" spans x=${Math.round(box.left)}..`
          + `${Math.round(box.right)}, its chart ${Math.round(frame.left)}..${Math.round(frame.right)}`);
      }
    }
  }

  // ------------------------------------------------------------ chips scrolled out of their field
  for (const chip of root.querySelectorAll('.stMultiSelect [data-tag]')) {
    if (!shown(chip)) continue;
    const box = chip.getBoundingClientRect();
    const field = chip.closest('.stMultiSelect');
    for (let up = chip.parentElement; up && up !== field; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const frame = up.getBoundingClientRect();
      if (box.top < frame.top - 1 || box.bottom > frame.bottom + 1 || box.left < frame.left - 1
        || box.right > frame.right + 1) {
        problems.hidden.push(`${describe(chip)} outside the visible box of ${describe(up)}`);
        break;
      }
    }
  }

  // A button in a box that scrolls sideways is in that box's visible part: scrolled out of it, a
  // person does not know it is there (a table wider than a phone, its Copy buttons past the edge).
  for (const button of elements.filter((el) => el.matches('button'))) {
    if (button.closest(SKIP) || !shown(button)) continue;
    const box = button.getBoundingClientRect();
    if (box.width < 1 || box.height < 1) continue;
    for (let up = parentOf(button); up && !up.matches(PAGE_SCROLLERS); up = parentOf(up)) {
      if (!scrollsX(up) || up.scrollWidth <= up.clientWidth + 1) continue;
      const frame = up.getBoundingClientRect();
      if (box.left < frame.left - 1 || box.right > frame.right + 1) {
        problems.hidden.push(`${describe(button)} at x=${Math.round(box.left)}..${Math.round(box.right)}, `
          + `outside the visible part of ${describe(up)} (x=${Math.round(frame.left)}..${Math.round(frame.right)})`);
      }
      break;
    }
  }

  // ------------------------------------------------------------ tables: in view, first column kept
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  for (const grid of root.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!shown(grid)) continue;
    const box = grid.getBoundingClientRect();
    if (box.width < 1) continue;
    if (box.left < -1 || box.right > viewportWidth + 1) {
      problems.table.push(`${describe(grid)} spans x=${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    const scroller = grid.querySelector('.dvn-scroller');
    if (!scroller || scroller.scrollWidth <= scroller.clientWidth + 1) continue;
    // The grid's accessible table holds the cells it draws: scrolled to the end, once the last
    // column's header is drawn, the first column's header must be drawn too.
    const accessible = grid.querySelector('table[role="grid"]');
    const header = (index) => accessible?.querySelector(`[role="columnheader"][aria-colindex="${index}"]`);
    const last = accessible?.getAttribute('aria-colcount');
    const before = scroller.scrollLeft;
    scroller.scrollLeft = scroller.scrollWidth;
    // Waits for the header to be drawn (up to 20 s: a loaded machine draws late), not a number of frames.
    const drawnBy = performance.now() + 20000;
    while (!header(last) && performance.now() < drawnBy) await nextFrame();
    if (!header(last)) problems.table.push(`${describe(grid)}: its last column is not drawn when scrolled to it`);
    else if (!header(1)) problems.table.push(`${describe(grid)}: its first column scrolls out of view`);
    scroller.scrollLeft = before;
    await nextFrame();
  }

  // An HTML table of figures (.figures-table, it scrolls sideways in its box): scrolled to the end,
  // each row's first cell (the name of the row) is still inside the box.
  for (const scroller of root.querySelectorAll('.figures-table')) {
    if (!shown(scroller) || scroller.scrollWidth <= scroller.clientWidth + 1) continue;
    const before = scroller.scrollLeft;
    scroller.scrollLeft = scroller.scrollWidth;
    await nextFrame();
    const frame = scroller.getBoundingClientRect();
    for (const row of scroller.querySelectorAll('tr')) {
      const first = row.firstElementChild?.getBoundingClientRect();
      if (first && (first.left < frame.left - 1 || first.right > frame.right + 1)) {
        problems.table.push(`${describe(scroller)}: its first column scrolls out of view`);
        break;
      }
    }
    scroller.scrollLeft = before;
  }

  // ------------------------------------------------------------ the diff panel's two rows
  for (const segment of root.querySelectorAll('.boundary-diff .diff-seg')) {
    const a = segment.querySelector('.diff-a')?.getBoundingClientRect();
    const b = segment.querySelector('.diff-b')?.getBoundingClientRect();
    if (!a || !b) { problems.diff.push(`${describe(segment)}: a row is missing`); continue; }
    if (Math.abs(a.left - b.left) > 1 || b.top < a.bottom - 1 || b.top > a.bottom + 4) {
      problems.diff.push(`${describe(segment)}: top cell at (${Math.round(a.left)}, ${Math.round(a.top)}), `
        + `bottom cell at (${Math.round(b.left)}, ${Math.round(b.top)})`);
    }
  }
  for (const key of Object.keys(problems)) problems[key] = problems[key].slice(0, 15);
  return problems;
}
