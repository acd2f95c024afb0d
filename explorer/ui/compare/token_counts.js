// Compare's counts at a glance (explorer/ui/compare/live_columns.py): one row per tokenizer, its
// Copy ids / Copy tokens buttons, the keyboard's focus kept across a redraw.
export default function(component) {
  const { parentElement, data } = component;
  const table = parentElement.querySelector('table');
  const head = table.querySelector('thead');
  const body = table.querySelector('tbody');
  const cell = (tag, text, cls) => {
    const el = document.createElement(tag);
    el.textContent = text;
    if (cls) el.className = cls;
    return el;
  };
  const copy = async (text, button, status) => {
    let ok = false;
    try { await navigator.clipboard.writeText(text); ok = true; } catch (error) {
      const area = document.createElement('textarea');
      area.value = text; area.style.position = 'fixed'; area.style.opacity = '0';
      parentElement.appendChild(area); area.select();
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      area.remove();
    }
    table.dataset.copied = text;
    status.textContent = ok ? `${button} copied` : 'copy failed: select the text instead';
  };
  // The rows are drawn anew on every update: a copy button that had the keyboard's focus gets it
  // back in its new row (a keyboard would otherwise be sent back to the page's start).
  const focused = parentElement.getRootNode().activeElement;
  const refocus = focused && focused.dataset && focused.dataset.copy
    ? [focused.closest('tr').dataset.tokenizer, focused.dataset.copy] : null;
  head.replaceChildren();
  const titles = ['Tokenizer', 'Tokens', 'Characters / token', 'vs the first'];
  const row = document.createElement('tr');
  titles.forEach((title) => row.appendChild(cell('th', title)));
  const characters = `${data.characters} character${data.characters === 1 ? '' : 's'}`;
  row.children[2].title = `The ${characters} of the lines (user-perceived: ` +
    'a grapheme cluster such as 👍🏽 is one, as in the box above) ÷ tokens';
  row.children[3].title = `Tokens more (+) or fewer (−) than ${data.first}`;
  head.appendChild(row);
  body.replaceChildren();
  for (const item of data.rows) {
    const tr = document.createElement('tr');
    tr.dataset.tokenizer = item.name;
    const name = cell('td', '', 'name');
    name.appendChild(cell('div', item.name));
    tr.appendChild(name);
    tr.appendChild(cell('td', item.tokens, 'number tokens'));
    tr.appendChild(cell('td', item.per_token, 'number'));
    tr.appendChild(cell('td', item.difference, 'number difference'));
    if (item.ids) {
      const buttons = cell('div', '', 'copy');
      const status = cell('span', '', 'copied');
      for (const [label, text] of [['Copy ids', item.ids], ['Copy tokens', item.token_strings]]) {
        const button = cell('button', label);
        button.type = 'button';
        button.dataset.copy = label;
        button.title = label === 'Copy ids'
          ? 'The ids as a JSON list (one list per line when there are several lines)'
          : 'The tokens as the vocabulary spells them, as a JSON list';
        button.addEventListener('click', () => copy(text, label === 'Copy ids' ? 'ids' : 'tokens', status));
        buttons.appendChild(button);
      }
      buttons.appendChild(status);
      name.appendChild(buttons);
    }
    body.appendChild(tr);
  }
  if (refocus) {
    const again = [...body.querySelectorAll('button')].find((button) =>
      button.dataset.copy === refocus[1] && button.closest('tr').dataset.tokenizer === refocus[0]);
    if (again) again.focus();
  }
}
