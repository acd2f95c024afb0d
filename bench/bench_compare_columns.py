"""How long the Compare page takes to first show each bundled tokenizer's column, and the server's
memory with every one of them shown.

    .venv/bin/python bench/bench_compare_columns.py [--repeat 1] [--only NAME ...] [--smoke]

1. For each bundled tokenizer, a fresh process opens the app through Streamlit's AppTest (the page
   script runs in that process, as in a server), trains the default sample, opens Compare showing
   the current run alone and reruns it once more (the baseline), then ticks the tokenizer and times
   until its column is drawn: that rerun (the column says it is loading), the tokenizer's first
   load in the background (file read, sha256 check, build: explorer.compare.warm) and the rerun the
   live box then asks for, with its spans, header, boundary diff and sentence figures (the corpus
   measurement in a worker is waited for 1 s at most, then left to the poller). Printed: that
   time, the baseline rerun, and the difference. No warm-up at the server's start
   (EXPLORER_WARM_UP=0).
   Also, in another fresh process, `column_html` of the column alone (load + encode + draw).
2. One fresh process shows the current run and all bundled tokenizers at once: the resident set
   of the page's process (VmRSS; the tokenizers are loaded there) and of its worker processes
   (which load the tokenizers they measure), before and after.

--smoke (what CI runs, so that the script cannot rot): GPT-2 alone, in both parts.

Figures only; it asserts nothing. The machine's 1-minute load average is printed: times on a busy
machine are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.pretrained import BUNDLED  # noqa: E402

COMMON = """
import json, os, time
from streamlit.testing.v1 import AppTest
from explorer.ui.common.state import Widget as W

def rss_mb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0

def descendants(pid):
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                children.append(int(entry))
    return children + [grandchild for child in children for grandchild in descendants(child)]

def workers_mb():
    return sum(rss_mb(pid) for pid in descendants(os.getpid()))

at = AppTest.from_file("app.py", default_timeout=300)
at.run()
at.button(key=W.TRAIN).click().run()
while "training_job" in at.session_state and at.session_state["training_job"] is not None:
    time.sleep(0.2)
    at.run()
run_key = at.session_state['current_run'].column_key
# Open Compare on the current run alone: no tokenizer is loaded before the one being timed (by
# default the page would show, and load, GPT-2, GPT-4 and GPT-4o).
from explorer.pretrained import BUNDLED
at.session_state[W.COLUMNS] = [run_key]
from explorer.ui.common.state import SEEN_COLUMNS
at.session_state[SEEN_COLUMNS] = {run_key} | {"pretrained:" + name for name in BUNDLED}
at.switch_page("pages/3_Compare.py").run()
from explorer.pretrained import is_loaded
assert not any(is_loaded(name) for name in BUNDLED)

from explorer.compare.warm import wait_all

def loading():
    bodies = [e.proto.body for e in at.get("html")] + [e.proto.json for e in at.get("bidi_component")]
    return any("column-loading" in body for body in bodies)

# The page run with `keys` shown, and while a column says it is loading, the wait for its load (in
# the background) and the run the live box then asks for.
def timed(keys):
    at.multiselect(key=W.COLUMNS).set_value(keys)
    started = time.perf_counter()
    at.run()
    while loading():
        wait_all(300)
        at.run()
    seconds = time.perf_counter() - started
    assert not at.exception, at.exception
    return seconds
"""

FIRST_SHOW = (
    COMMON
    + """
timed([run_key])
baseline = timed([run_key])
first = timed([run_key, "pretrained:" + NAME])
errors = [str(e.value) for e in at.error]
print(json.dumps({"first": first, "baseline": baseline, "errors": errors}))
"""
)

COLUMN_ALONE = """
import json, time
from explorer.compare import pretrained_column
from explorer.compare.html import column_html
from explorer.samples import SAMPLE_SENTENCES
started = time.perf_counter()
column_html(pretrained_column(NAME), SAMPLE_SENTENCES)
print(json.dumps({"alone": time.perf_counter() - started}))
"""

ALL_SHOWN = (
    COMMON
    + """
timed([run_key])
before = (rss_mb(os.getpid()), workers_mb())
seconds = timed([run_key] + ["pretrained:" + name for name in NAMES])
after = (rss_mb(os.getpid()), workers_mb())
def strings(value):
    if isinstance(value, str):
        yield value
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        yield from strings(item)
# Each column starts with its token count, drawn as HTML or inside a live view's data.
drawn = [e.proto.body for e in at.get("html")]
drawn += [text for e in at.get("bidi_component") for text in strings(json.loads(e.proto.json or "null"))]
shown = sum(body.count('class="column-count"') for body in drawn)
print(json.dumps({"before": before, "after": after, "seconds": seconds, "shown": shown,
                  "errors": [str(e.value) for e in at.error]}))
"""
)


def run_python(code: str, **names) -> dict:
    """Run `code` (its NAME / NAMES given) in a fresh process with a run store of its own."""
    code = "".join(f"{key} = {value!r}\n" for key, value in names.items()) + code
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "EXPLORER_STORE_PATH": f"{folder}/runs.sqlite3",
            "EXPLORER_WARM_UP": "0",  # nothing loaded before the column timed (explorer.compare.warm)
        }
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900
        )
    if result.returncode:
        raise RuntimeError(result.stderr.strip().splitlines()[-1])
    return json.loads(result.stdout.strip().splitlines()[-1])


def first_show(names: list[str], repeat: int) -> None:
    print(f"1. first show of each column, fresh process each (median of {repeat})")
    print(f"   {'tokenizer':<52} {'page rerun':>10} {'baseline':>9} {'added':>7} {'column alone':>13}")
    for name in names:
        runs = [run_python(FIRST_SHOW, NAME=name) for _ in range(repeat)]
        alone = statistics.median(run_python(COLUMN_ALONE, NAME=name)["alone"] for _ in range(repeat))
        first = statistics.median(run["first"] for run in runs)
        baseline = statistics.median(run["baseline"] for run in runs)
        errors = {error for run in runs for error in run["errors"]}
        label = f"{BUNDLED[name].label} ({name})"
        print(
            f"   {label:<52} {first:>8.2f} s {baseline:>7.2f} s {first - baseline:>5.2f} s {alone:>11.2f} s"
            + (f"   errors: {sorted(errors)}" if errors else "")
        )


def all_shown(names: list[str]) -> None:
    """`names` shown at once with the current run (every bundled tokenizer but in --smoke)."""
    result = run_python(ALL_SHOWN, NAMES=names)
    (page_before, workers_before), (page_after, workers_after) = result["before"], result["after"]
    shown = result["shown"]
    print(f"2. the current run and {len(names)} bundled tokenizers shown at once ({shown} columns)")
    print(f"   that rerun: {result['seconds']:.1f} s")
    print(f"   page process RSS: {page_before:.0f} MB before, {page_after:.0f} MB after")
    print(f"   worker processes RSS (sum): {workers_before:.0f} MB before, {workers_after:.0f} MB after")
    if result["errors"]:
        print(f"   errors: {result['errors']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, help="bundled names (default: all)")
    parser.add_argument("--smoke", action="store_true", help="GPT-2 alone, once (what CI runs)")
    args = parser.parse_args()
    names = ["gpt2"] if args.smoke else args.only or list(BUNDLED)
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    first_show(names, 1 if args.smoke else args.repeat)
    all_shown(names if args.smoke else list(BUNDLED))


if __name__ == "__main__":
    main()
