// The drawn signal (explorer/ui/common/drawn.py): dispatches its event on `window` every time it
// is drawn, as the last element of a fragment.
export default function(component) {
  const { data } = component;
  window.dispatchEvent(new CustomEvent(data.event, { detail: JSON.parse(data.detail) }));
}
