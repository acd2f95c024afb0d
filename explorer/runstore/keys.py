"""Keys of the run store: who can find a stored run, and the secret behind that.

`run_key` is HMAC-SHA256 of the corpus's sha256 and the settings' canonical JSON under a
per-deployment secret (EXPLORER_SECRET, else 32 random bytes created once in `secret.key` next to
the database, mode 0600). Without the corpus nobody can compute a key, and the store has no
listing: a visitor cannot reach another visitor's corpus. Keys are 64 lowercase hex digits
(`is_run_key` checks one taken from a URL). An uploaded tokenizer's key (`upload_key`) is
`upload:` + 32 hex digits of the same HMAC; `is_upload_key` and `is_old_upload_key` tell its form
from that of older versions' links (`OLD_UPLOAD_LINK` says what to do with one).

A run its visitor stopped has a key of its own, never the shared one (a partial run must not be
served to the next visitor asking for the whole): `stopped_run_key(stopped_key_seed(secret, key),
steps)`. The seed is what the worker that trained it is given (not the secret), so that it stores
the stopped run itself, for every session waiting for that job (a reload's too).

What it does not do: store anything (explorer.runstore.sqlite).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

LOG = logging.getLogger("explorer.runstore")

SECRET_FILE = "secret.key"
_RUN_KEY = re.compile(r"[0-9a-f]{64}")
UPLOAD_META_KIND = "compare-upload"  # the settings part of an upload's key
UPLOAD_PREFIX = "upload:"
# Hex digits of an upload's key (128 bits of its HMAC): fewer than the 64 of the bare sha256 that
# older versions wrote, so that their links are told apart and answered with OLD_UPLOAD_LINK.
UPLOAD_KEY_DIGITS = 32
_UPLOAD_KEY = re.compile(rf"{UPLOAD_PREFIX}[0-9a-f]{{{UPLOAD_KEY_DIGITS}}}")
_OLD_UPLOAD_KEY = re.compile(rf"{UPLOAD_PREFIX}[0-9a-f]{{64}}")
OLD_UPLOAD_LINK = (
    "This link names an uploaded tokenizer the way older versions of the app did (by the sha256 of "
    "its files), which cannot be opened any more: upload its files again on the Compare page."
)


def canonical_json(value: object) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept (for hashing settings)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_key(secret: bytes, corpus_sha256: str, settings_json: str) -> str:
    """HMAC-SHA256 (hex) of the corpus digest and the settings; the digest has a fixed length,
    so the two parts cannot be shifted into each other."""
    if not re.fullmatch(r"[0-9a-f]{64}", corpus_sha256):
        raise ValueError("corpus_sha256 must be 64 lowercase hex digits")
    message = f"{corpus_sha256}\n{settings_json}".encode("utf-8", "surrogatepass")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def stopped_key_seed(secret: bytes, key: str) -> str:
    """What the keys of the stopped runs of the training under `key` are made from (hex)."""
    return hmac.new(secret, f"stopped\n{key}".encode(), hashlib.sha256).hexdigest()


def stopped_run_key(seed: str, steps: int) -> str:
    """The key of that training's run stopped after `steps` merges (or Unigram rounds)."""
    return hmac.new(seed.encode(), str(steps).encode(), hashlib.sha256).hexdigest()


def is_run_key(text: object) -> bool:
    return isinstance(text, str) and _RUN_KEY.fullmatch(text) is not None


def load_secret(folder: Path, environ: Mapping[str, str] | None = None) -> bytes:
    """EXPLORER_SECRET, else the secret in `folder/secret.key`, created once (mode 0600).

    Created under a temporary name and linked into place, so two server processes starting at
    once agree on one secret and neither reads a half-written file."""
    environ = os.environ if environ is None else environ
    if environ.get("EXPLORER_SECRET"):
        return environ["EXPLORER_SECRET"].encode("utf-8")
    path = folder / SECRET_FILE
    if not path.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = folder / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_hex(32))
            os.link(temporary, path)
            LOG.info("created the run store's secret %s", path)
        except FileExistsError:
            pass  # another process made it first: use theirs
        finally:
            temporary.unlink()
    secret = path.read_text().strip()
    if len(secret) < 32:
        raise ValueError(f"the secret in {path} is too short: delete the file to have a new one made")
    return secret.encode("utf-8")


def upload_key(secret: bytes, content: str) -> str:
    """An uploaded tokenizer's key from its readers' content key (`upload:` + the sha256 of its
    files): `upload:` + the first `UPLOAD_KEY_DIGITS` hex digits of `run_key` under `secret`."""
    digest = content.removeprefix(UPLOAD_PREFIX)
    keyed = run_key(secret, digest, canonical_json({"kind": UPLOAD_META_KIND}))
    return UPLOAD_PREFIX + keyed[:UPLOAD_KEY_DIGITS]


def is_upload_key(value: object) -> bool:
    """Whether `value` has the form of an upload's key (`upload_key`)."""
    return isinstance(value, str) and _UPLOAD_KEY.fullmatch(value) is not None


def is_old_upload_key(value: object) -> bool:
    """Whether `value` is an upload's key as versions before the keyed uploads wrote them in links
    (`upload:` + the bare sha256 of its files), which no server opens any more."""
    return isinstance(value, str) and _OLD_UPLOAD_KEY.fullmatch(value) is not None
