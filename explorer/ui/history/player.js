// The step player's transport (explorer/ui/history/player.py): Play, Pause, Back, Next, the
// slider, the step's line and the clock. Loaded after when_idle.js (explorer/ui/common/), whose
// whenIdle it calls.
export default function(component) {
  const { parentElement, data, setStateValue } = component;
  const root = parentElement.querySelector('.player');
  const $ = (name) => root.querySelector(name);
  const play = $('.player-play'), pause = $('.player-pause'), back = $('.player-back');
  const next = $('.player-next'), range = $('.player-range'), line = $('.player-line');
  const s = root.__player || (root.__player = {
    wired: false, seq: data.ack, playing: false, shown: data.step, timer: null, lastAsk: 0,
  });
  s.data = data;
  s.setStateValue = setStateValue;
  const fmt = (n) => n.toLocaleString('en-US');
  const syncUrl = () => {  // the URL's step is the step shown (the server may have written an older one)
    const url = new URL(window.location.href);
    if (url.searchParams.has(s.data.param) && url.searchParams.get(s.data.param) !== String(s.shown)) {
      url.searchParams.set(s.data.param, String(s.shown));
      window.history.replaceState(window.history.state, '', url.toString());
    }
  };
  // Streamlit writes the server's query parameters into the URL when a drawing arrives
  // (history.pushState / replaceState), and a drawing of an older action carries an older step:
  // every such write gets the step shown instead, so the URL never says another step, not even
  // until this drawing's syncUrl.
  window.__explorerPlayer = { root, param: () => s.data.param, shown: () => s.shown };
  if (!window.__explorerUrlGuard) {
    window.__explorerUrlGuard = true;
    for (const name of ['pushState', 'replaceState']) {
      const write = window.history[name].bind(window.history);
      window.history[name] = (state, unused, target) => {
        const player = window.__explorerPlayer;
        if (target != null && player && player.root.isConnected) {
          const url = new URL(target, window.location.href);
          const param = player.param();
          if (url.pathname === window.location.pathname && url.searchParams.has(param)
              && url.searchParams.get(param) !== String(player.shown())) {
            url.searchParams.set(param, String(player.shown()));
            target = url.toString();
          }
        }
        return write(state, unused, target);
      };
    }
  }
  // A button that turns disabled while it has the keyboard's focus (Play once playing, Pause at
  // the end, Back at step 0, Next at the last) hands the focus to its counterpart, so that a
  // keyboard is never left on nothing (the focus would fall back to the page's start).
  const counterpart = new Map([[play, pause], [pause, play], [back, next], [next, back]]);
  const keepFocus = (focused) => {
    const to = counterpart.get(focused);
    if (to && focused.disabled && !to.disabled) to.focus();
  };
  const showStep = (step) => {  // the slider, its label, the buttons and the URL at `step`
    const focused = root.getRootNode().activeElement;
    s.shown = step;
    range.value = String(step);
    $('.player-value').textContent = fmt(step);
    $('.player-of').textContent = `of ${fmt(s.data.steps)}` + (s.playing ? ' · playing' : '');
    play.disabled = s.playing;
    pause.disabled = !s.playing;
    back.disabled = step <= 0;
    next.disabled = step >= s.data.steps;
    keepFocus(focused);
    root.dataset.step = String(step);
    root.dataset.playing = String(s.playing);
    syncUrl();
  };
  const send = (step, playing) => {  // one action, numbered; the server draws the newest
    clearTimeout(s.timer);
    s.timer = null;
    s.seq += 1;
    s.lastAsk = performance.now();
    line.classList.add('player-pending');
    const newest = s.outbox === undefined || s.outbox === null;
    s.outbox = { seq: s.seq, step, playing };
    if (newest) {  // sent when no run is in progress; actions made meanwhile: the newest goes
      whenIdle(() => {
        const action = s.outbox;
        s.outbox = null;
        s.setStateValue('action', action);
      });
    }
  };
  const act = (step, playing) => {  // a person's action: shown at once
    step = Math.max(0, Math.min(s.data.steps, step));
    s.playing = playing && step < s.data.steps;
    showStep(step);
    send(step, s.playing);
  };
  const tick = () => {  // the clock's action: shown when drawn, so the line and the step agree
    s.timer = null;
    if (!s.playing) return;
    const step = Math.min(s.data.steps, s.shown + s.data.per_tick);
    send(step, step < s.data.steps);
  };
  // The server's drawing is the truth once it has taken the newest action (or when it set the
  // step itself, as a lesson does); a drawing of an older action is ignored.
  if (data.ack >= s.seq) {
    s.seq = data.ack;
    s.playing = data.playing;
    line.innerHTML = data.line_html;
    line.classList.remove('player-pending');
    showStep(data.step);
  }
  syncUrl();
  range.max = String(data.steps);
  range.setAttribute('aria-label', data.label);
  $('.player-label-text').textContent = data.label;
  play.title = `Play the ${data.noun}s one after another from this step (from the first one at the end).`;
  back.title = `One ${data.noun} back`;
  next.title = `One ${data.noun} forward`;
  if (s.wired) return;
  s.wired = true;
  play.addEventListener('click', () => act(s.shown >= s.data.steps ? 0 : s.shown, true));
  pause.addEventListener('click', () => act(s.shown, false));
  back.addEventListener('click', () => act(s.shown - 1, false));
  next.addEventListener('click', () => act(s.shown + 1, false));
  range.addEventListener('input', () => {  // dragging: the label follows, the clock stops
    clearTimeout(s.timer);
    s.timer = null;
    $('.player-value').textContent = fmt(Number(range.value));
  });
  range.addEventListener('change', () => act(Number(range.value), false));
  window.addEventListener(s.data.drawn_event, (event) => {
    // Everything of the newest action is drawn: while playing, ask for the next step once the
    // speed's interval since the last request has passed.
    const detail = event.detail || {};
    if (detail.key !== s.data.key) return;
    syncUrl();
    if (detail.ack !== s.seq || !s.playing || s.timer !== null) return;
    const wait = Math.max(0, s.lastAsk + s.data.interval_ms - performance.now());
    s.timer = setTimeout(tick, wait);
  });
}
