"""python -m loaders.validate: the pre-publication check, file by file."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from jsonschema import Draft202012Validator

from loaders.validate import main
from tests.conftest import SAMPLE, copy_tree


def test_validate_clean_snapshot_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SAMPLE / "snapshots" / "2026-11")]) == 0
    assert "217 countries valid, 0 problems" in capsys.readouterr().out


def test_validate_reports_each_bad_file_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = copy_tree(SAMPLE, tmp_path / "data") / "snapshots" / "2026-11"
    (directory / "countries" / "KEN.json").write_text("{")
    (directory / "countries" / "USA.json").unlink()
    assert main([str(directory)]) == 1
    out = capsys.readouterr().out
    assert f"{directory}/countries/KEN.json: " in out
    assert f"{directory}/countries/USA.json: cannot read" in out
    assert "215 countries valid, 2 problems" in out


def test_validate_refused_snapshot_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = copy_tree(SAMPLE, tmp_path / "data") / "snapshots" / "2026-11"
    (directory / "manifest.json").unlink()
    assert main([str(directory)]) == 1
    assert f"{directory}: REFUSED" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["country", "manifest"])
def test_validate_print_schema_is_a_valid_json_schema(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--print-schema", kind]) == 0
    Draft202012Validator.check_schema(orjson.loads(capsys.readouterr().out))
