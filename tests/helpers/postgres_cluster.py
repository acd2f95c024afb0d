"""A private PostgreSQL server for the tests: `initdb` and `pg_ctl` in a temporary folder, listening
on 127.0.0.1 at a free port only, trusting local connections, no fsync (a throwaway).

Debian's `postgresql` package (installed by `tasks.py test`) puts the programs in
/usr/lib/postgresql/<version>/bin. initdb refuses to run as root, so as root (CI) the server runs as
the package's `postgres` user (`runuser`), in a folder given to that user. `stop()` ends the server
and removes the folder; `restart()` and `stop(keep=True)` + `start()` are for the tests of a store
whose server goes away.

What it does not do: install PostgreSQL (tasks.py), or share one server between processes (each
pytest session, so each xdist worker, starts its own: tests/conftest.py).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "explorer"  # the role initdb makes, a superuser of this cluster
SERVER_USER = "postgres"  # the Debian package's system user, who runs the server when we are root


def programs() -> Path | None:
    """The folder holding initdb and pg_ctl (the newest version installed), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4]))
    return Path(folders[-1]).parent if folders else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    def __init__(self, bin_folder: Path):
        self.bin = bin_folder
        self.folder = Path(tempfile.mkdtemp(prefix="explorer-postgres-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            account = pwd.getpwnam(SERVER_USER)
            os.chown(self.folder, account.pw_uid, account.pw_gid)
            self.as_user = ["runuser", "-u", SERVER_USER, "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", USER, "-E", "UTF8", "--no-sync")
        for attempt in (1, 2, 3):  # another process may take the free port before the server does
            try:
                self.start()
                break
            except subprocess.CalledProcessError:
                if attempt == 3:
                    raise
                self.port = free_port()

    def _run(self, program: str, *arguments: str) -> None:
        subprocess.run(
            [*self.as_user, str(self.bin / program), *arguments],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.folder,
        )

    def url(self, user: str = USER) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-o", options, "start"
        )

    def restart(self) -> None:
        self.stop(keep=True)
        self.start()

    def stop(self, keep: bool = False) -> None:
        """End the server (`fast`: its connections broken at once, what was committed kept); remove
        its folder unless `keep`."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        if not keep:
            shutil.rmtree(self.folder, ignore_errors=True)
