"""A labelled field whose own pattern finds no value takes the typed entity nearest its label."""

from __future__ import annotations

import httpx
import pytest
from conftest import LiveServer

from lastline.rules import RuleEngine, find_entities, load_pack
from lastline.rules.extract import extract_fields, nearest_entity

README_SENTENCE = "甲方应于2024年6月15日前支付人民币伍拾万元整，违约金为合同金额的百分之十五。"


@pytest.fixture(scope="module")
def engine() -> RuleEngine:
    return RuleEngine()


def test_readme_sentence_gets_its_amount_from_the_money_before_the_label(engine: RuleEngine) -> None:
    result = engine.extract(README_SENTENCE, pack="contract_zh")
    assert result.fields["amount"] == {"amount": "500000", "currency": "CNY"}
    assert result.fields["penalty_rate"] == "15"
    assert "amount" in result.rule_ids


def test_a_value_after_the_label_wins_over_one_before_at_the_same_distance() -> None:
    text = "预付¥100，金额为到期后¥200"
    entities = find_entities(text)
    label = text.index("金额为"), text.index("金额为") + 3
    # ¥100 ends one character before the label, ¥200 starts three after it: the nearer one wins …
    assert nearest_entity(text, entities, [label], ("money",), 40) == {"amount": "100", "currency": "CNY"}
    # … and on a tie the one after the label is taken.
    tie = "¥100，金额为，¥200"
    at = tie.index("金额为")
    assert nearest_entity(tie, find_entities(tie), [(at, at + 3)], ("money",), 40) == {
        "amount": "200", "currency": "CNY"}


def test_no_entity_is_taken_across_a_sentence_end_or_past_the_window() -> None:
    text = "合同总价另行约定。人民币伍拾万元整"
    at = text.index("合同总价")
    assert nearest_entity(text, find_entities(text), [(at, at + 4)], ("money",), 40) is None
    far = "合同总价" + "，" * 50 + "人民币伍拾万元整"
    assert nearest_entity(far, find_entities(far), [(0, 4)], ("money",), 40) is None


def test_without_a_label_match_nothing_is_filled(engine: RuleEngine) -> None:
    result = engine.extract("乙方收到人民币伍拾万元整后开具发票。", pack="contract_zh", fields=["amount"])
    assert result.fields["amount"] is None


def test_only_money_date_and_percent_rules_fall_back_to_entities() -> None:
    pack = load_pack({"name": "memo", "rules": [
        {"id": "note", "patterns": ["备注[:：](?P<value>[^\\n]{0,5})"], "normalizer": "upper"},
        {"id": "total", "patterns": ["总额[:：](?P<value>[^\\n]{0,3})"], "normalizer": "money"}]}, "test")
    result = extract_fields(pack, "备注:\n总额:见下，¥30")
    assert result.fields == {"note": None, "total": {"amount": "30", "currency": "CNY"}}


def test_fallback_answers_with_the_readme_amount_on_a_real_server(live_server: LiveServer) -> None:
    r = httpx.post(live_server.url("/v1/fallback"), timeout=30,
                   json={"prompt": "提取合同要素", "task": "contract_zh", "text": README_SENTENCE})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["source"], body["degradation_depth"]) == ("rules", 2)
    assert body["fields"]["amount"] == {"amount": "500000", "currency": "CNY"}
    assert body["fields"]["penalty_rate"] == "15"
