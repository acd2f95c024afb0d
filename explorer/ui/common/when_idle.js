// whenIdle(send): `send` now when no script run is in progress, else once the run in progress
// has ended (explorer/ui/common/drawn.py says why). Prepended to a component's own script
// (explorer/ui/history/player.py), so it is no module of its own and exports nothing.
const whenIdle = (send) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const busy = () => app && ['running', 'rerunRequested'].includes(
    app.getAttribute('data-test-script-state'));
  if (!busy()) { send(); return; }
  const observer = new MutationObserver(() => {
    if (!busy()) { observer.disconnect(); send(); }
  });
  observer.observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
};
