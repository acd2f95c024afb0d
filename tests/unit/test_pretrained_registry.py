"""explorer/pretrained/registry.json, the table of bundled tokenizers, and the reading of it: every
row filled with values the loaders know, one package's rows agreeing with each other and with
requirements.txt, and a row that is not right refused by name. Reads no tokenizer file (the parity
tests, tests/parity/test_pretrained*.py, load each one and check its hash and size)."""

import json
import re
import typing

import pytest

from explorer.pretrained.pieces import NormalForm
from explorer.pretrained.registry import (
    BUNDLED,
    FAMILIES,
    KINDS,
    PATTERNS,
    SPECIAL_TOKEN_TABLES,
    TABLE,
    read_table,
)
from tests import ROOT

ROWS = json.loads(TABLE.read_text(encoding="utf-8"))
SHA256 = re.compile(r"[0-9a-f]{64}")


def test_every_row_is_read_once_in_order():
    assert [row["name"] for row in ROWS] == list(BUNDLED)


@pytest.mark.parametrize("name", list(BUNDLED))
def test_every_row_is_filled_with_known_values(name):
    info = BUNDLED[name]
    assert info.family in FAMILIES and info.kind in KINDS
    assert info.label and info.models and info.vocab_size > 0
    assert info.files and all(SHA256.fullmatch(data_file.sha256) for data_file in info.files)
    assert info.normalization in (None, *typing.get_args(NormalForm))
    assert all(type(token) is str and type(id) is int for token, id in info.special_tokens.items())


def test_the_names_a_row_gives_are_defined():
    for row in ROWS:
        assert row.get("pattern", "GPT2_PATTERN") in PATTERNS, row["name"]
        if isinstance(row.get("special_tokens"), str):
            assert row["special_tokens"] in SPECIAL_TOKEN_TABLES, row["name"]


def test_one_packages_rows_agree_and_give_the_version_requirements_pins():
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    pinned = dict(line.split("==") for line in lines if "==" in line and not line.startswith("#"))
    by_package: dict[str, set[tuple[str, str, str]]] = {}
    for info in BUNDLED.values():
        by_package.setdefault(info.package, set()).add((info.module, info.package_version, info.license))
    for package, facts in by_package.items():
        assert len(facts) == 1, (package, facts)
        assert pinned.get(package) == next(iter(facts))[1], package


def write_rows(tmp_path, rows):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"vocab_size": None}, "missing 1 required positional argument: 'vocab_size'"),
        ({"files": None}, "missing 1 required positional argument: 'files'"),
        ({"colour": "red"}, "unexpected keyword argument 'colour'"),
        ({"pattern": "GPT5_PATTERN"}, "no pattern or special-token table is named 'GPT5_PATTERN'"),
        ({"special_tokens": "gpt5_special_tokens"}, "named 'gpt5_special_tokens'"),
    ],
)
def test_a_wrong_row_is_refused_by_name(tmp_path, change, message):
    row = {key: value for key, value in {**ROWS[0], **change}.items() if value is not None}
    with pytest.raises(ValueError, match=f"row 'gpt2': .*{re.escape(message)}"):
        read_table(write_rows(tmp_path, [row]))


def test_two_rows_with_one_name_are_refused(tmp_path):
    with pytest.raises(ValueError, match="a name is given to two rows"):
        read_table(write_rows(tmp_path, [ROWS[0], ROWS[1], ROWS[0]]))
    assert list(read_table(write_rows(tmp_path, ROWS[:2]))) == ["gpt2", "cl100k_base"]
