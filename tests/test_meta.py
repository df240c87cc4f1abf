"""AnswerMeta and meta_headers (readiness/domain/meta.py): what an answer says about itself."""

from __future__ import annotations

import pytest

from readiness.domain.meta import AnswerMeta, Format, meta_headers


def test_meta_headers_of_a_json_list_answer() -> None:
    meta = AnswerMeta(Format.JSON, "2026-11", "2026-11-05", 217, "readiness")
    assert meta_headers(meta) == (
        ("Content-Type", "application/json; charset=utf-8"),
        ("Last-Modified", "Thu, 05 Nov 2026 00:00:00 GMT"),
        ("X-Readiness-Snapshot", "2026-11"),
        ("X-Total-Count", "217"),
    )


def test_meta_headers_of_a_csv_answer_name_the_download() -> None:
    meta = AnswerMeta(Format.CSV, "2024-12", "2024-12-03", 0, "readiness")
    assert meta_headers(meta) == (
        ("Content-Type", "text/csv; charset=utf-8"),
        ("Content-Disposition", 'attachment; filename="readiness-2024-12.csv"'),
        ("Last-Modified", "Tue, 03 Dec 2024 00:00:00 GMT"),
        ("X-Readiness-Snapshot", "2024-12"),
        ("X-Total-Count", "0"),
    )


def test_meta_csv_download_of_synthetic_data_is_named_so() -> None:
    meta = AnswerMeta(Format.CSV, "2026-11", "2026-11-05", 3, "readiness", synthetic=True)
    assert meta.filename == "readiness-2026-11-synthetic.csv"
    assert ("Content-Disposition", 'attachment; filename="readiness-2026-11-synthetic.csv"') in meta_headers(meta)
    assert AnswerMeta(Format.CSV, None, None, 0, "history", synthetic=True).filename == "history-synthetic.csv"
    assert AnswerMeta(Format.CSV, "2026-11", None, 0, "history").filename == "history-2026-11.csv"


def test_meta_without_a_snapshot_is_json_content_type_only() -> None:
    assert meta_headers(AnswerMeta()) == (("Content-Type", "application/json; charset=utf-8"),)
    assert AnswerMeta().modified is None


def test_meta_modified_is_the_publication_date_at_midnight_gmt() -> None:
    assert AnswerMeta(published="1970-01-02").modified == 86400
    assert AnswerMeta(published="2024-02-29").modified == 1709164800


@pytest.mark.parametrize(
    "fields",
    [{"snapshot": "2026-11\r\nX: 1"}, {"snapshot": "current"}, {"published": "2026-02-30"}, {"published": "2026-13-01"},
     {"published": "1969-12-31"}, {"published": "5 Nov 2026"}, {"total": -1}, {"total": 2**32},
     {"download": "Readiness"}, {"download": 'a"b'}, {"download": ""}, {"download": "x" * 33}],
)
def test_meta_refuses_what_a_header_could_not_carry(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (the message names the value; any is fine)
        AnswerMeta(**fields)  # type: ignore[arg-type]
