"""The answer envelope and its end-user notices."""

from __future__ import annotations

import pytest

from lastline import Answer, Citation, Confidence, Source, notice_for


def test_envelope_serializes_contract_field_names() -> None:
    answer = Answer(
        answer="x", source=Source.KB, confidence=Confidence.MEDIUM, degradation_depth=3,
        citations=[Citation(doc_id="d1", heading="Intro", span=(0, 10))], notice=notice_for("kb", "en"),
    )
    body = answer.model_dump(mode="json")
    for field in ("answer", "source", "confidence", "degradation_depth", "stale", "age_s", "similarity",
                  "citations", "fields", "notice"):
        assert field in body
    assert body["source"] == "kb"
    assert body["citations"][0]["span"] == [0, 10]


@pytest.mark.parametrize("source", list(Source))
def test_every_source_has_a_notice_in_both_languages(source: Source) -> None:
    zh, en = notice_for(source, "zh"), notice_for(source, "en")
    assert zh and en and zh != en
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh)


def test_stale_notice_says_so() -> None:
    assert "expired" in notice_for("cache", "en", stale=True)
    assert "过期" in notice_for("cache", "zh", stale=True)


def test_depth_is_bounded() -> None:
    with pytest.raises(ValueError):
        Answer(answer="x", source=Source.DEFAULT, confidence=Confidence.LOW, degradation_depth=5)
