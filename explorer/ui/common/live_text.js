// The live text box (explorer/ui/common/live_text.py): sends what is typed as it is typed, one
// text in flight at a time, and counts characters as people count them.
export default function(component) {
  const { parentElement, data, setStateValue, setTriggerValue } = component;
  const box = parentElement.querySelector('.live-box');
  const note = parentElement.querySelector('.live-note');
  const label = parentElement.querySelector('.live-label');
  box.setAttribute('aria-label', data.label);
  label.textContent = data.label;
  box.rows = data.rows;
  box.maxLength = data.max_characters;
  const live = data.live_characters;
  const figure = (n) => n.toLocaleString('en-US');
  const describe = () => {  // the characters typed (explorer.drawing.wording.character_count)
    const text = box.value;
    const n = countCharacters(text);
    note.textContent = n > live
      ? `${figure(n)} characters: over ${figure(live)}, the results follow when you pause typing`
      : (data.show_count ? `${figure(n)} character${n === 1 ? '' : 's'}` : '');
    const points = text.length - (text.match(/[\ud800-\udbff][\udc00-\udfff]/g) || []).length;
    note.title = `${figure(n)} user-perceived characters (grapheme clusters: 👍🏽 is one), ` +
      `line breaks not counted; ${figure(points)} code points, ` +
      `${figure(new TextEncoder().encode(text).length)} UTF-8 bytes`;
    return n;
  };
  const state = box.__live || (box.__live = {
    started: false, timer: null, lastSent: 0, inFlight: false, sentText: null, flightTimer: null,
  });
  state.setStateValue = setStateValue;
  state.setTriggerValue = setTriggerValue;
  if (!state.started) {  // a new box: the page's text (later, the box keeps what is typed)
    state.started = true;
    box.value = data.text;
    state.sentText = data.text;
    describe();
  }
  if (box.__listening) return;
  box.__listening = true;
  const send = () => {
    clearTimeout(state.timer);
    state.timer = null;
    if (state.inFlight) return;  // `answered` sends what is new
    state.inFlight = true;
    clearTimeout(state.flightTimer);
    state.flightTimer = setTimeout(() => answered(), data.answer_wait_ms);
    state.lastSent = performance.now();
    state.sentText = box.value;
    box.dataset.sent = String(Number(box.dataset.sent || 0) + 1);
    state.setStateValue('text', box.value);
  };
  const schedule = (characters) => {
    clearTimeout(state.timer);
    const wait = characters > live
      ? data.pause_ms
      : Math.max(0, state.lastSent + data.throttle_ms - performance.now());
    state.timer = setTimeout(send, wait);
  };
  const answered = () => {  // the fragment drew the text in flight: the next may go
    clearTimeout(state.flightTimer);
    if (state.inFlight) box.dataset.answered = String(Number(box.dataset.answered || 0) + 1);
    state.inFlight = false;
    if (box.value !== state.sentText && state.timer === null) schedule(countCharacters(box.value));
  };
  const again = () => {  // the fragment asked to run again (something it shows was not ready)
    clearTimeout(state.againTimer);
    state.againTimer = setTimeout(() => {
      if (state.inFlight || state.timer !== null) return;  // the text on its way runs it anyway
      box.dataset.again = String(Number(box.dataset.again || 0) + 1);
      state.setTriggerValue('again', Date.now());
    }, data.again_ms);
  };
  window.addEventListener(data.answered_event, (event) => {
    if (!event.detail || event.detail.key !== data.key) return;
    answered();
    if (event.detail.again) again();
  });
  box.addEventListener('blur', () => {
    if (state.timer !== null) send();  // nothing typed is left unsent
  });
  box.addEventListener('keydown', (event) => {  // one line: Enter sends now, adds no line break
    if (event.key === 'Enter' && box.rows === 1) {
      event.preventDefault();
      send();
    }
  });
  box.addEventListener('input', () => schedule(describe()));
}

// Line breaks, as Python's str.splitlines() sees them: they end sentences and are not counted.
const LINE_BREAK = /[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

// User-perceived characters (extended grapheme clusters) that are not line breaks.
function countCharacters(text) {
  if (/^[\x00-\x7f]*$/.test(text)) return text.length - (text.match(/[\n\r\v\f\x1c-\x1e]/g) || []).length;
  let n = 0;
  for (const { segment } of graphemes.segment(text)) if (!LINE_BREAK.test(segment[0])) n += 1;
  return n;
}
