"""The fallback ladder, rung by rung, on a real runtime (real model, real SQLite, every tier wired)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lastline import Embedder, NoDegradedWrites, NoFallbackAnswer, load_settings
from lastline.api import Runtime
from lastline.api.ladder.defaults import DeclaredDefault
from lastline.api.ladder.ladder import FallbackRequest, run_ladder

PROMPT = "How do I reset my password?"
ANSWER = "Use the 'forgot password' link on the sign-in page."


@pytest.fixture
def runtime(db_path: Path, embedder: Embedder) -> Iterator[Runtime]:
    rt = Runtime.open(load_settings(db=db_path))
    yield rt
    rt.close()


def events_of(rt: Runtime) -> list[Any]:
    """The default tenant's events, once the background writer has written this process's own."""
    rt.flush_telemetry()
    return list(rt.events.list(tenant="default"))


def ask(rt: Runtime, tenant: str = "default", **fields: object) -> object:
    return run_ladder(rt, tenant, FallbackRequest(**fields))


def test_depth_0_exact_cache_hit_is_high_confidence(runtime: Runtime) -> None:
    entry = runtime.cache.put(PROMPT, ANSWER)
    got = ask(runtime, prompt="how do I reset my password")
    assert (got.source.value, got.layer, got.degradation_depth) == ("cache", "exact", 0)
    assert got.answer == ANSWER and got.entry_id == entry
    assert got.confidence.value == "high" and got.stale is False
    assert got.notice.startswith("Answered from a previously cached response")


def test_depth_1_semantic_hit_with_threshold_override(runtime: Runtime) -> None:
    runtime.cache.put(PROMPT, ANSWER)
    got = ask(runtime, prompt="I forgot my password, how do I reset it?", threshold=0.85)
    assert (got.source.value, got.layer, got.degradation_depth) == ("cache", "semantic", 1)
    assert got.answer == ANSWER
    assert 0.85 <= got.similarity < 1.0


def test_cache_respects_context_fingerprint(runtime: Runtime) -> None:
    runtime.cache.put(PROMPT, ANSWER, context="tool:accounts@v1")
    with pytest.raises(NoFallbackAnswer):
        ask(runtime, prompt=PROMPT, context="tool:accounts@v2")
    assert ask(runtime, prompt=PROMPT, context="tool:accounts@v1").answer == ANSWER


def test_depth_4_declared_default_for_the_task(runtime: Runtime) -> None:
    runtime.defaults.put(tenant="default", task="order_status", default=DeclaredDefault(answer="Try later."))
    got = ask(runtime, prompt="where is my parcel", task="order_status")
    assert (got.source.value, got.confidence.value, got.degradation_depth) == ("default", "low", 4)
    assert got.answer == "Try later."


def test_route_wide_default_answers_any_task_in_the_request_language(runtime: Runtime) -> None:
    runtime.defaults.put(tenant="default", task="*", default=DeclaredDefault(answer="稍后再试。"))
    got = ask(runtime, prompt="我的订单到哪里了？", task="unknown_task")
    assert got.degradation_depth == 4
    assert got.notice == "服务暂时不可用，以下为预设的默认回复。"


def test_nothing_answers_is_no_fallback_answer_with_the_path(runtime: Runtime) -> None:
    with pytest.raises(NoFallbackAnswer) as info:
        ask(runtime, prompt="a question nobody has asked before")
    assert info.value.status == 404
    assert "cache:" in info.value.detail and "default:none" in info.value.detail


def test_write_is_refused_with_key_and_reads_no_cache(runtime: Runtime) -> None:
    runtime.cache.put("pay invoice 42", "paid")
    runtime.defaults.put(tenant="default", task="*", default=DeclaredDefault(answer="x"))
    before = runtime.cache.stats(tenant="default")["lookups"]
    with pytest.raises(NoDegradedWrites) as info:
        ask(runtime, prompt="pay invoice 42", operation="write", idempotency_key="idem-7")
    assert info.value.status == 409
    assert info.value.to_dict()["idempotency_key"] == "idem-7"
    assert runtime.cache.stats(tenant="default")["lookups"] == before
    assert runtime.metrics.value("lastline_cache_lookups_total", layer="exact", result="hit") == 0
    assert runtime.metrics.value("lastline_cache_lookups_total", layer="exact", result="miss") == 0


def test_task_declared_with_side_effects_is_refused_like_a_write(runtime: Runtime) -> None:
    runtime.cache.put("transfer 100 to bob", "done")
    runtime.defaults.put(tenant="default", task="transfer", default=DeclaredDefault(side_effects=True))
    before = runtime.cache.stats(tenant="default")["lookups"]
    with pytest.raises(NoDegradedWrites):
        ask(runtime, prompt="transfer 100 to bob", task="transfer", idempotency_key="k")
    assert runtime.cache.stats(tenant="default")["lookups"] == before


def test_tenants_do_not_see_each_others_cache_or_defaults(runtime: Runtime) -> None:
    runtime.cache.put(PROMPT, ANSWER, tenant="acme")
    runtime.defaults.put(tenant="acme", task="*", default=DeclaredDefault(answer="acme default"))
    assert ask(runtime, "acme", prompt=PROMPT).answer == ANSWER
    with pytest.raises(NoFallbackAnswer):
        ask(runtime, "globex", prompt=PROMPT)


def test_each_request_records_one_event_with_hash_only(runtime: Runtime) -> None:
    runtime.cache.put(PROMPT, ANSWER)
    ask(runtime, prompt=PROMPT, reason="upstream_timeout")
    [event] = events_of(runtime)
    assert (event.tier, event.depth, event.confidence, event.reason) == ("exact", 0, "high", "upstream_timeout")
    assert len(event.prompt_hash) == 64 and event.prompt is None and event.answer is None



CONTRACT = (
    "购销合同\n甲方：北京星辰科技有限公司\n乙方：上海云帆贸易有限公司\n签订日期：2024年3月15日\n"
    "合同金额：人民币伍拾万元整（¥500,000.00）\n违约金比例：合同金额的5%\n"
)


def test_depth_2_rules_extract_fields_for_the_task(runtime: Runtime) -> None:
    got = ask(runtime, prompt="提取这份合同的甲方、乙方和金额", task="contract_zh", text=CONTRACT)
    assert (got.source.value, got.confidence.value, got.degradation_depth) == ("rules", "medium", 2)
    assert got.fields["party_a"] == "北京星辰科技有限公司"
    assert got.fields["amount"] == {"amount": "500000", "currency": "CNY"}
    assert got.fields["sign_date"] == "2024-03-15"
    assert "北京星辰科技有限公司" in got.answer
    assert got.notice == "以下内容由本地规则自动提取，未经大模型处理，请核对。"


def test_rules_pack_without_any_field_found_falls_through(runtime: Runtime) -> None:
    runtime.defaults.put(tenant="default", task="contract_zh", default=DeclaredDefault(answer="later"))
    got = ask(runtime, prompt="summarize the contract", task="contract_zh", text="no parties here at all")
    assert got.source.value == "default"
    assert "rules:contract_zh:no_fields" in events_of(runtime)[0].path


def test_depth_3_knowledge_base_answer_with_citation(runtime: Runtime) -> None:
    runtime.kb.add_document(
        tenant="default", title="Refund policy", source="policy.md",
        text="# Refunds\nRefunds are issued within 14 days of purchase if the item is unused.",
    )
    got = ask(runtime, prompt="How many days do I have to get a refund?")
    assert (got.source.value, got.degradation_depth) == ("kb", 3)
    assert "14 days" in got.answer
    assert got.citations and got.citations[0].source == "policy.md"
    assert got.notice == "Answered from the local knowledge base; it may be out of date."
    event = events_of(runtime)[0]
    assert (event.tier, event.depth) == ("kb", 3) and event.path.startswith("cache:")


def test_higher_rung_wins_when_several_could_answer(runtime: Runtime) -> None:
    question = "How many days do I have to get a refund?"
    runtime.kb.add_document(tenant="default", title="Refunds", source="p.md",
                            text="Refunds are issued within 14 days of purchase.")
    runtime.defaults.put(tenant="default", task="*", default=DeclaredDefault(answer="later"))
    runtime.cache.put(question, "30 days for members.")
    assert ask(runtime, prompt=question).source.value == "cache"
    runtime.cache.invalidate(tenant="default", everything=True)
    assert ask(runtime, prompt=question).source.value == "kb"


def test_kb_is_per_tenant_through_the_ladder(runtime: Runtime) -> None:
    runtime.kb.add_document(tenant="acme", title="Acme VPN", source="vpn.md",
                            text="The acme VPN gateway is vpn.acme.example on port 4443.")
    assert ask(runtime, "acme", prompt="What is the acme VPN gateway address?").source.value == "kb"
    with pytest.raises(NoFallbackAnswer):
        ask(runtime, "globex", prompt="What is the acme VPN gateway address?")


def test_expired_entry_is_served_stale_with_low_confidence_and_says_so(runtime: Runtime) -> None:
    runtime.cache.put(PROMPT, ANSWER, ttl_s=0.05)
    time.sleep(0.1)
    got = ask(runtime, prompt=PROMPT)
    assert got.source.value == "cache" and got.stale is True
    assert got.confidence.value == "low"
    assert got.notice.endswith("(This cached answer has expired.)")
    with pytest.raises(NoFallbackAnswer):
        ask(runtime, prompt=PROMPT, mode="intercept")


def test_old_events_are_pruned_by_age(runtime: Runtime) -> None:
    runtime.defaults.put(tenant="default", task="*", default=DeclaredDefault(answer="x"))
    ask(runtime, prompt="first")
    time.sleep(0.05)
    ask(runtime, prompt="second")
    runtime.flush_telemetry()
    assert runtime.events.prune(older_than_s=0.03) == 1
    assert [e.tier for e in events_of(runtime)] == ["default"]


def test_tool_result_comes_back_exact_only_with_medium_confidence(runtime: Runtime) -> None:
    args = '{"city":"Berlin","unit":"C"}'
    runtime.cache.put(args, '{"temp": 21}', context="tool:weather@v2", exact_only=True)
    got = ask(runtime, prompt=args, context="tool:weather@v2", exact_only=True)
    assert (got.answer, got.layer, got.confidence.value) == ('{"temp": 21}', "exact", "medium")
    with pytest.raises(NoFallbackAnswer):  # other arguments never match semantically
        ask(runtime, prompt='{"city":"Bern","unit":"C"}', context="tool:weather@v2", exact_only=True)
    assert runtime.metrics.value("lastline_cache_lookups_total", layer="fuzzy", result="miss") == 0
