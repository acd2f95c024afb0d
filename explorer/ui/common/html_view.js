// Our escaped HTML put in place (explorer/ui/common/html_view.py): whole, or as keyed parts of
// which only the changed ones are made anew; a plain click on a link to a step is sent to the server.
export default function(component) {
  const { parentElement, data, setTriggerValue } = component;
  let root = parentElement.querySelector('.html-view');
  if (!root) {
    root = document.createElement('div');
    root.className = 'html-view';
    parentElement.appendChild(root);
    // A plain click on a link to a step (`data-step`) moves within the app: the server opens the
    // step. A click with a modifier, or the middle button, opens the link's URL as any link does.
    root.addEventListener('click', (event) => {
      const link = event.target.closest('a[data-step]');
      if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
        return;
      }
      event.preventDefault();
      root.__follow('step', Number(link.dataset.step));
    });
  }
  root.__follow = setTriggerValue;
  if (data.parts) {  // keyed parts: only those whose HTML changed are made anew
    let box = root.firstElementChild;
    if (!box || root.__parts !== data.class_name) {
      box = document.createElement('div');
      box.className = data.class_name;
      root.replaceChildren(box);
      root.__parts = data.class_name;
      root.__html = null;
    }
    const old = new Map([...box.children].map((el) => [el.__part, el]));
    let previous = null;
    for (const [key, html] of data.parts) {
      let el = old.get(key);
      old.delete(key);
      if (!el || el.__html !== html) {
        const made = document.createElement('template');
        made.innerHTML = html;
        const fresh = made.content.firstElementChild || document.createElement('div');
        fresh.__part = key;
        fresh.__html = html;
        if (el) el.replaceWith(fresh);
        el = fresh;
      }
      const next = previous ? previous.nextElementSibling : box.firstElementChild;
      if (next !== el) box.insertBefore(el, next);
      previous = el;
    }
    old.forEach((el) => el.remove());
    return;
  }
  if (root.__html !== data.html) {
    root.__html = data.html;
    root.__parts = null;
    root.innerHTML = data.html;
  }
}
