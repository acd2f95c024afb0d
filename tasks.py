#!/usr/bin/env python3
"""The project's two commands, each bootstrapping what it needs on a machine with only python3.

    python3 tasks.py app    start the web app (http://localhost:8501; extra arguments go to
                            `streamlit run`, `--dev` reloads it when a source file is saved,
                            `--replicas N` starts N servers behind nginx: docs/serving.md)
    python3 tasks.py test   run the whole test suite (extra arguments go to pytest)
    python3 tasks.py lint   check formatting and lint with the pinned ruff (`ruff format` fixes layout),
                            then type-check explorer/ with the pinned mypy (pyproject.toml [tool.mypy])

Both create `.venv` on first use and reinstall only when a requirements file changed (with uv,
installed into .venv first, which takes seconds where pip takes minutes; with pip if uv cannot be
had), and install the explorer package itself into it, editable, so that `python -m explorer`, the
`explorer` command and a downloaded notebook's `import explorer` work from any folder. `app` and
`test` pass SIGTERM and SIGINT on to the server (or pytest) and wait for it to end, so stopping
this script never leaves an orphaned server behind. `test` also makes sure Debian's Chromium and
the Noto CJK and emoji fonts are present for the browser tests, Debian's postgresql for the run
store's tests on PostgreSQL, nginx for the tests of several replicas and Node.js, whose parser
checks the JavaScript files (installing what is missing with apt-get when running as root);
without them those tests are skipped with a message saying so. `app` and `test` also build the
compiled training engine (engine/, Rust) into .venv when cargo is there, again only when its files
changed, and say in one line when it is not (training then uses the Python engine); `test` runs
the crate's own tests (`cargo test`) first.
With EXPLORER_ENGINE=rust (as .ci/run sets it) a missing cargo or a failed build is an error, not
a note.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
CHROMIUM = Path("/usr/bin/chromium")
UV = "uv==0.13.9"  # the installer: the pinned requirements, resolved as pip would, in seconds
# Test processes side by side (pytest-xdist), EXPLORER_TEST_WORKERS of them (1: one process). Three
# by default on this 2-core machine: a browser test waits on its server and Chromium in turn, and
# with two workers the machine was busy about half the time (fresh clones: 24.4 min of pytest);
# with three, 98% busy and 16.7 min. A test one worker's load breaks needs an idle machine: a defect.
TEST_WORKERS = os.environ.get("EXPLORER_TEST_WORKERS", "3")


def _run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True)


# Installed packages are compiled to bytecode as they are installed (pip's default; uv's option):
# where PYTHONDONTWRITEBYTECODE is set (as on this machine) no process ever writes it, and every
# server, worker and test process compiled Streamlit, pandas and the rest again as it started
# (importing the app's stack: 7.2 s of CPU from source, 2.4 s from bytecode). Part of the stamp,
# so that a .venv installed without it is installed again.
UV_OPTIONS = ("--compile-bytecode",)


def _uv_install(*arguments: str) -> None:
    """`uv pip install` into .venv (uv itself installed there by ensure_venv)."""
    _run(str(PYTHON), "-m", "uv", "pip", "install", "--quiet", "--python", str(PYTHON), *arguments)


def ensure_venv(requirements: str) -> None:
    """Build or update .venv for `requirements`, one command at a time (.ci/run starts `lint` and
    `test` together: the second waits here for the first's install)."""
    with open(ROOT / ".venv.lock", "w") as lock:
        if os.name == "posix":
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        _install(requirements)


def _install(requirements: str) -> None:
    files = [ROOT / "requirements.txt", ROOT / requirements]
    digest = hashlib.sha256(
        b"".join(f.read_bytes() for f in files) + " ".join(UV_OPTIONS).encode()
    ).hexdigest()
    stamp = VENV / f".installed-{requirements}"
    if stamp.exists() and stamp.read_text() == digest and PYTHON.exists():
        return
    if not PYTHON.exists():
        _run(sys.executable, "-m", "venv", str(VENV))
    pip = [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    try:
        _run(*pip, UV)
        _uv_install(*UV_OPTIONS, "-r", str(ROOT / requirements))
    except subprocess.CalledProcessError:
        print("note: uv could not be installed or failed; installing with pip (slower)", flush=True)
        _run(*pip, "-r", str(ROOT / requirements))
    stamp.write_text(digest)


ENGINE = ROOT / "engine"


def _engine_files() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*") if p.is_file() and "target" not in p.relative_to(ENGINE).parts)


def ensure_engine() -> None:
    """Build the compiled engine into .venv (uv runs maturin, cargo builds the crate) when the
    crate's files changed since the last build; a note when it cannot be built."""
    required = os.environ.get("EXPLORER_ENGINE") == "rust"
    digest = hashlib.sha256()
    for path in _engine_files():
        digest.update(str(path.relative_to(ENGINE)).encode() + b"\0" + path.read_bytes() + b"\0")
    stamp = VENV / ".installed-engine"
    if stamp.exists() and stamp.read_text() == digest.hexdigest():
        return
    if shutil.which("cargo") is None:
        if required:
            sys.exit("EXPLORER_ENGINE=rust, but cargo is not installed: the Rust engine cannot be built")
        print("note: cargo not found, so training uses the Python engine (install Rust to build engine/)")
        return
    started = time.monotonic()
    try:
        _uv_install("--reinstall-package", "explorer-engine", str(ENGINE))
    except subprocess.CalledProcessError:
        if required:
            raise
        print("note: the Rust engine did not build (see above), so training uses the Python engine")
        return
    print(f"built the Rust engine (engine/) in {time.monotonic() - started:.0f} s", flush=True)
    stamp.write_text(digest.hexdigest())


def ensure_package() -> None:
    """Install the explorer package into .venv in editable mode (this checkout's files, found from
    any folder: `python -m explorer`, the `explorer` command, a downloaded notebook's `import
    explorer`) when pyproject.toml changed since the last install. Its dependencies are
    requirements.txt's, which ensure_venv installed."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + str(ROOT).encode()).hexdigest()
    stamp = VENV / ".installed-package"
    if stamp.exists() and stamp.read_text() == digest:
        return
    try:
        _uv_install("--no-deps", "-e", str(ROOT))
    except subprocess.CalledProcessError:
        print("note: uv could not install the package; installing it with pip (slower)", flush=True)
        _run(
            str(PYTHON),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "-e",
            str(ROOT),
        )
    stamp.write_text(digest)


# Debian's packages the browser tests draw with: the browser, and the fonts of the CJK and emoji
# text the tests type (without them Chromium draws boxes, and the layout checks measure boxes).
BROWSER_PACKAGES = ("chromium", "fonts-noto-cjk", "fonts-noto-color-emoji")
# The run store's tests on PostgreSQL start a private server with its initdb and pg_ctl
# (tests/helpers/postgres_cluster.py); the package starts no server of its own here.
STORE_PACKAGES = ("postgresql",)
# The tests of several replicas run nginx in front of them as a private process (tasks.Replicas).
REPLICA_PACKAGES = ("nginx",)
# The components' JavaScript files are checked by Node's parser, `node --check` (V8's, as Chromium's
# is): tests/unit/test_javascript.py.
SCRIPT_PACKAGES = ("nodejs",)
TEST_PACKAGES = BROWSER_PACKAGES + STORE_PACKAGES + REPLICA_PACKAGES + SCRIPT_PACKAGES


def missing_test_packages() -> list[str]:
    """Those of TEST_PACKAGES not installed (where dpkg is not there: chromium when
    /usr/bin/chromium is missing, postgresql when initdb is not on the PATH, nginx when it is not
    there either, nodejs when node is not on the PATH, the fonts cannot be asked after)."""
    if shutil.which("dpkg-query") is None:
        return [
            package
            for package, there in (
                ("chromium", CHROMIUM.exists()),
                ("postgresql", shutil.which("initdb")),
                ("nginx", nginx_program()),
                ("nodejs", shutil.which("node")),
            )
            if not there
        ]
    listing = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${db:Status-Abbrev}\n", *TEST_PACKAGES],
        capture_output=True,
        text=True,
    ).stdout  # exit status 1 when one is unknown to dpkg: that one is missing
    installed = {line.split()[0] for line in listing.splitlines() if line.split()[1:2] == ["ii"]}
    return [package for package in TEST_PACKAGES if package not in installed]


def nginx_program() -> str | None:
    """Debian's nginx (in /usr/sbin, which a user's PATH may not hold), or None."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def ensure_test_packages() -> None:
    """Install what the browser tests, the PostgreSQL store's tests, the replicas' tests and the
    JavaScript files' check need of TEST_PACKAGES with apt-get when running as root; elsewhere, say
    what is missing. Nothing when all are there."""
    missing = missing_test_packages()
    if not missing:
        return
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", *missing], check=True, env=env, stdout=subprocess.DEVNULL
        )
        return
    if "chromium" in missing:
        print(
            "note: /usr/bin/chromium is missing (Debian: apt-get install chromium); "
            "browser tests will be skipped"
        )
    elif set(missing) & set(BROWSER_PACKAGES):
        fonts = [package for package in missing if package in BROWSER_PACKAGES]
        print(
            f"note: {', '.join(fonts)} missing (Debian: apt-get install {' '.join(fonts)}); "
            "the browser tests draw CJK and emoji text as boxes"
        )
    if "postgresql" in missing:
        print(
            "note: PostgreSQL is missing (Debian: apt-get install postgresql); "
            "the run store's tests on PostgreSQL will be skipped"
        )
    if "nginx" in missing:
        print(
            "note: nginx is missing (Debian: apt-get install nginx); "
            "the tests of several replicas will be skipped"
        )
    if "nodejs" in missing:
        print(
            "note: Node.js is missing (Debian: apt-get install nodejs); "
            "the JavaScript files' syntax check will be skipped"
        )


# ---------------------------------------------------------------- the server

# Where a server listens: the only options a launch adds; .streamlit/config.toml sets the rest
# (tests/unit/test_launch.py holds every test and bench to that).
PLACE_OPTIONS = ("--server.port", "--server.address")
# `tasks.py app --dev`: reload the app when a source file is saved. The host's launch watches no
# file: with watchdog installed, Streamlit's default watcher walked every session's modules, and
# thirty visitors of one link waited 5.3-5.4 s each instead of 0.6-1.7 s (docs/serving.md).
DEV_OPTIONS = ("--server.fileWatcherType", "auto", "--server.runOnSave", "true")


def server_launch(
    python: str | Path,
    options: tuple[str, ...] | list[str] = (),
    environ: dict[str, str] | None = None,
    script: str = "app.py",
) -> tuple[list[str], dict[str, str]]:
    """The command and environment that start the web app's server, run from the repository's
    root: `tasks.py app`, the tests' servers and the benches' alike (tests/browser/helpers.py).
    `options` go to `streamlit run` after the script; `environ` (default: this process's) gets
    the settings every launch has, an explicit MALLOC_ARENA_MAX winning."""
    env = dict(
        os.environ if environ is None else environ,
        HF_HUB_OFFLINE="1",  # nothing is downloaded at run time
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",  # the log says what happened when it happened
    )
    # Each visitor's script runs in its own thread; glibc's per-thread malloc arenas would keep
    # the memory of finished trainings mapped (measured: 1.40 GB -> 1.13 GB peak in
    # bench/load_test.py with 2 arenas).
    env.setdefault("MALLOC_ARENA_MAX", "2")
    return [str(python), "-m", "streamlit", "run", script, *options], env


def run_forwarding_signals(command: list[str], env: dict[str, str]) -> int:
    """Run `command`, passing SIGTERM and SIGINT on to it, until it ends; its exit status (128 + the
    signal's number when a signal ended it, as a shell reports it)."""
    child = subprocess.Popen(command, env=env)

    def forward(signum, _frame) -> None:
        child.send_signal(signum)

    previous = {signum: signal.signal(signum, forward) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        status = child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 128 - status if status < 0 else status


# ---------------------------------------------------------------- several replicas

NGINX_TEMPLATE = ROOT / "deploy" / "nginx.conf"
REPLICA_COOKIE = "explorer_replica"  # the sticky cookie deploy/nginx.conf sets
# Streamlit lets an upload's multipart body be this much larger than maxUploadSize (its framing).
UPLOAD_FRAMING_MB = 1


def free_port() -> int:
    """A TCP port free on the loopback interface right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def upload_limit_mb() -> int:
    """.streamlit/config.toml's `server.maxUploadSize` (in MB)."""
    found = re.search(r"^maxUploadSize\s*=\s*(\d+)", (ROOT / ".streamlit/config.toml").read_text(), re.M)
    if found is None:
        raise ValueError(".streamlit/config.toml sets no maxUploadSize")
    return int(found.group(1))


def nginx_config(listen: str, replicas: list[str], folder: Path) -> str:
    """deploy/nginx.conf with its places filled: nginx listening on `listen`, in front of the
    `replicas` (host:port each), writing its pid, log and temporary files in `folder`."""
    servers = "\n".join(f"        server {replica} max_fails=2 fail_timeout=10s;" for replica in replicas)
    places = {
        "@LISTEN@": listen,
        "@SERVERS@": servers,
        "@FOLDER@": str(folder),
        "@UPLOAD_MB@": str(upload_limit_mb() + UPLOAD_FRAMING_MB),
    }
    text = NGINX_TEMPLATE.read_text()
    for place, value in places.items():
        text = text.replace(place, value)
    return text


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def _stop_group(process: subprocess.Popen, seconds: float = 10.0) -> None:
    """End a process and its children (its own process group): SIGTERM, then SIGKILL."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signum)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=seconds)


class Replicas:
    """`count` servers of the app, each launched as server_launch launches one (the same command and
    settings, its own loopback port and so its own worker pool), with one EXPLORER_SECRET (this
    environment's, else a new one for them all) and one run store (EXPLORER_STORE_URL's PostgreSQL
    if set, else the SQLite file every replica on this machine opens: EXPLORER_STORE_PATH or the
    default), and nginx in front on `listen` (deploy/nginx.conf). `start()` returns once nginx and
    every replica answer; `stop()` ends them all. Each process runs in a process group of its own;
    `logs`, when given, is a folder for each one's output (replica-<i>.log; nginx writes its
    error.log in its own folder, `folder`).

    What it does not do: start PostgreSQL (the operator's, or the tests' private server), or
    restart a replica that died (nginx sends its visitors to the others)."""

    def __init__(
        self,
        python: str | Path,
        count: int,
        listen: str = "127.0.0.1:0",
        environ: dict[str, str] | None = None,
        options: tuple[str, ...] | list[str] = (),
        logs: Path | None = None,
    ):
        if count < 1:
            raise ValueError(f"--replicas takes a number of servers, at least 1, not {count}")
        if nginx_program() is None:
            raise FileNotFoundError("nginx is not installed (Debian: apt-get install nginx)")
        self.python = python
        self.environ = dict(os.environ if environ is None else environ)
        self.environ.setdefault("EXPLORER_SECRET", secrets.token_hex(32))
        self.options = list(options)
        host, _, port = listen.rpartition(":")
        self.listen = f"{host}:{port if port != '0' else free_port()}"
        self.ports = [free_port() for _ in range(count)]
        self.logs = logs
        self.folder = Path(tempfile.mkdtemp(prefix="explorer-nginx-"))
        self.processes: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """Where visitors go: nginx."""
        host, _, port = self.listen.rpartition(":")
        return f"http://{'127.0.0.1' if host in ('', '0.0.0.0') else host}:{port}"

    @property
    def replica_urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def _output(self, name: str):
        return open(self.logs / f"{name}.log", "wb") if self.logs else None

    def start_replica(self, index: int) -> subprocess.Popen:
        place = ("--server.address", "127.0.0.1", "--server.port", str(self.ports[index]))
        command, env = server_launch(self.python, [*self.options, *place], self.environ)
        output = self._output(f"replica-{index}")
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT if output else None,
            start_new_session=True,
        )
        if output:
            output.close()
        if index < len(self.processes):
            self.processes[index] = process
        else:
            self.processes.append(process)
        return process

    def start(self, seconds: float = 60.0) -> Replicas:
        try:
            for index in range(len(self.ports)):
                self.start_replica(index)
            self.wait_healthy(self.replica_urls, seconds)
            nginx = nginx_program() or "nginx"
            config = self.folder / "nginx.conf"
            servers = [f"127.0.0.1:{port}" for port in self.ports]
            config.write_text(nginx_config(self.listen, servers, self.folder))
            if os.geteuid() == 0:  # nginx's workers run as nobody: they write their temporary files here
                self.folder.chmod(0o755)
            self.nginx = subprocess.Popen(
                [nginx, "-p", str(self.folder), "-c", str(config), "-e", str(self.folder / "error.log")],
                start_new_session=True,
            )
            self.wait_healthy([self.url], seconds)
        except BaseException:
            self.stop()
            raise
        return self

    def wait_healthy(self, urls: list[str], seconds: float) -> None:
        deadline = time.monotonic() + seconds
        for url in urls:
            while not _healthy(url):
                ended = [
                    p.args for p in [*self.processes, self.nginx] if p is not None and p.poll() is not None
                ]
                if ended or time.monotonic() > deadline:
                    log = self.folder / "error.log"
                    detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                    raise RuntimeError(f"{url} did not answer (ended: {ended}) {detail}")
                time.sleep(0.2)

    def stop(self) -> None:
        for process in [self.nginx, *self.processes]:
            if process is not None:
                _stop_group(process)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Replicas:
        return self.start()

    def __exit__(self, *_exception) -> None:
        self.stop()


def run_replicas(count: int, options: list[str]) -> int:
    """`tasks.py app --replicas N`: N replicas and nginx in front on `--server.address`:`--server.port`
    (default every address, port 8501), until SIGTERM or SIGINT, or until nginx ends."""
    place = {name: options[i + 1] for i, name in enumerate(options[:-1]) if name in PLACE_OPTIONS}
    rest = [
        arg
        for i, arg in enumerate(options)
        if arg not in PLACE_OPTIONS and (i == 0 or options[i - 1] not in PLACE_OPTIONS)
    ]
    listen = f"{place.get('--server.address', '0.0.0.0')}:{place.get('--server.port', '8501')}"
    replicas = Replicas(PYTHON, count, listen, options=rest)
    ended: list[int] = []

    def stop(signum, _frame) -> None:
        ended.append(signum)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        with replicas:
            store = (
                os.environ.get("EXPLORER_STORE_URL", "").split("@")[-1] or "the SQLite file on this machine"
            )
            print(
                f"{count} replicas behind nginx at {replicas.url} (sticky cookie {REPLICA_COOKIE}); "
                f"store: {store}",
                flush=True,
            )
            while not ended and replicas.nginx is not None and replicas.nginx.poll() is None:
                time.sleep(0.5)
            status = 128 + ended[0] if ended else replicas.nginx.poll() if replicas.nginx else 1
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return status


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("app", "test", "lint"):
        print(__doc__)
        return 2
    os.chdir(ROOT)
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    if argv[0] == "app":
        ensure_venv("requirements.txt")
        ensure_package()
        ensure_engine()
        options = [arg for arg in argv[1:] if arg != "--dev"]
        if "--dev" in argv[1:]:
            options[:0] = DEV_OPTIONS
        if "--replicas" in options:
            at = options.index("--replicas")
            count = options[at + 1] if at + 1 < len(options) else ""
            if not count.isdigit() or int(count) < 1:
                print(f"--replicas takes a number of servers, at least 1, not {count!r}")
                return 2
            return run_replicas(int(count), options[:at] + options[at + 2 :])
        command, env = server_launch(PYTHON, options)
    elif argv[0] == "lint":
        ensure_venv("requirements-dev.txt")
        ruff = [str(PYTHON), "-m", "ruff"]
        mypy = [str(PYTHON), "-m", "mypy"]  # what to check and how: [tool.mypy] in pyproject.toml
        for command in ([*ruff, "format", "--check", "."], [*ruff, "check", "."], mypy):
            print("+", " ".join(command), flush=True)
            if subprocess.call(command, env=env):
                return 1
        return 0
    else:
        ensure_venv("requirements-dev.txt")
        ensure_package()
        ensure_engine()
        ensure_test_packages()
        if shutil.which("cargo"):  # the crate's own invariants (a debug build, without Python)
            cargo_test = ["cargo", "test", "--quiet", "--manifest-path", str(ENGINE / "Cargo.toml")]
            print("+", " ".join(cargo_test), flush=True)
            # Without debug info (a failed assert still names its file and line): a fresh clone's
            # build 19.5 -> 15.7 cpu-s.
            if subprocess.call(cargo_test, env=dict(os.environ, CARGO_PROFILE_DEV_DEBUG="0")):
                return 1
        chosen = any(arg.startswith(("-n", "--numprocesses")) for arg in argv[1:])  # the caller's -n wins
        # Whole files to a worker as it frees up, in tests/conftest.py's order (the longest first).
        by_file = ["-n", TEST_WORKERS, "--dist", "loadfile", "--no-loadscope-reorder"]
        workers = [] if chosen or TEST_WORKERS in ("0", "1") else by_file
        command = [str(PYTHON), "-m", "pytest", *workers, *argv[1:]]
    print("+", " ".join(command), flush=True)
    return run_forwarding_signals(command, env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
