// The "Copy link" box (explorer/ui/common/link.py): the URL the browser shows now, and its Copy button.
export default function(component) {
  const { parentElement } = component;
  const code = parentElement.querySelector('.copy-link-url');
  const button = parentElement.querySelector('button');
  const status = parentElement.querySelector('.copy-link-status');
  const show = () => {
    if (code.textContent !== window.location.href) code.textContent = window.location.href;
  };
  show();
  if (parentElement.__copyLink) return;
  const timer = setInterval(() => (code.isConnected ? show() : clearInterval(timer)), 250);
  parentElement.__copyLink = timer;
  button.addEventListener('click', async () => {
    show();
    try { await navigator.clipboard.writeText(window.location.href); status.textContent = 'Copied'; }
    catch (error) { status.textContent = 'Select the link and copy it'; }
  });
}
