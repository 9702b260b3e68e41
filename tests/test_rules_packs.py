"""Rule packs: loading and validation errors, extraction, triggers, uploads, templates, regex safety."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastline import PostgresStorage, SQLiteStorage
from lastline.errors import Conflict, InvalidInput, NotFound
from lastline.rules import PackError, RuleEngine, compile_pattern, load_pack, render_template
from lastline.rules.packs import parse_pack_yaml
from lastline.rules.store import open_pack_store

PACK = """
name: shop
triggers: {tasks: [receipt], keywords: [收据, 小票], min_keywords: 1}
rules:
  - id: total
    patterns: ['(?:合计|Total)\\s*[:：]?\\s*(?P<value>[^\\n]+)']
    normalizer: money
    required: true
  - id: store
    patterns: ['店名\\s*[:：]\\s*(?P<value>[^\\n]+)']
template: "共 {{ total.amount }} 元"
"""


@pytest.fixture(scope="module")
def engine() -> RuleEngine:
    return RuleEngine()


def test_builtin_packs_are_shipped_and_use_re2(engine: RuleEngine) -> None:
    names = {p.name for p in engine.packs()}
    assert {"contract_zh", "contract_en", "contact", "generic"} <= names
    assert all(pat.engine == "re2" for p in engine.packs() for r in p.rules for pat in r.patterns)


@pytest.mark.parametrize(("yaml_text", "fragments"), [
    ("name: x\nrules:\n  - id: a\n    patterns: ['x']\n    normalizer: moeny\n",
     ["x.yaml", "rule 'a'", "'normalizer'"]),
    ("name: x\nrules:\n  - id: a\n    patterns: ['(unclosed']\n", ["x.yaml", "rule 'a'", "patterns[0]"]),
    ("name: x\nrules:\n  - id: a\n", ["x.yaml", "rule 'a'", "'patterns'"]),
    ("name: x\nrules:\n  - id: a\n    patterns: [a]\n  - id: a\n    patterns: [b]\n", ["rule 'a'", "duplicate"]),
    ("name: x\nrules:\n  - id: a\n    patterns: [a]\ntemplate: '{{ oops'\n", ["x.yaml", "templates.default"]),
    ("name: x\nrules:\n  - id: a\n    patterns: [a]\n    colour: red\n", ["rule 'a'", "colour"]),
    ("rules: []\n", ["x.yaml", "'name'"]),
])
def test_invalid_packs_name_file_rule_and_field(yaml_text: str, fragments: list[str]) -> None:
    with pytest.raises(PackError) as info:
        load_pack(parse_pack_yaml(yaml_text, "x.yaml"), "x.yaml")
    for fragment in fragments:
        assert fragment in info.value.detail


def test_missing_fields_are_null_and_listed_never_invented() -> None:
    pack = load_pack(parse_pack_yaml(PACK))
    from lastline.rules.extract import extract_fields

    result = extract_fields(pack, "店名：便利店\n没有金额")
    assert result.fields == {"total": None, "store": "便利店"}
    assert result.missing == ["total"]
    assert result.valid is False
    assert any("total" in e for e in result.errors)
    assert result.rule_ids == ["store"]


def test_contract_zh_extracts_the_core_fields(engine: RuleEngine) -> None:
    text = ("合同编号：HT-2024-0815\n甲方（买方）：北京星辰科技有限公司\n乙方（卖方）：上海明远贸易有限公司\n"
            "签订日期：2024年6月15日\n合同金额：人民币伍拾万元整（¥500,000.00）\n付款方式：银行转账\n"
            "违约方应按合同总额的百分之五支付违约金。")
    result = engine.extract(text, pack="contract_zh")
    assert result.valid, result.errors
    assert result.fields["party_a"] == "北京星辰科技有限公司"
    assert result.fields["amount"] == {"amount": "500000", "currency": "CNY"}
    assert result.fields["sign_date"] == "2024-06-15"
    assert result.fields["penalty_rate"] == "5"
    assert result.fields["term"] is None and "term" in result.missing


def test_fields_subset_and_unknown_field(engine: RuleEngine) -> None:
    result = engine.extract("甲方：A公司", pack="contract_zh", fields=["party_a"])
    assert result.fields == {"party_a": "A公司"}
    with pytest.raises(InvalidInput, match="no field"):
        engine.extract("x", pack="contract_zh", fields=["colour"])


def test_unknown_pack_is_not_found(engine: RuleEngine) -> None:
    with pytest.raises(NotFound):
        engine.extract("x", pack="nope")


def test_match_task_by_name_and_by_keywords(engine: RuleEngine) -> None:
    assert engine.match_task("contract_zh", "") is not None
    pack = engine.match_task(None, "甲方与乙方签订本合同，违约金为百分之五")
    assert pack is not None and pack.name == "contract_zh"
    assert engine.match_task(None, "今天天气怎么样") is None


def test_generic_pack_collects_every_entity(engine: RuleEngine) -> None:
    result = engine.extract("联系 bob@example.com 或 13812345678，金额5000元", pack="generic")
    assert result.fields["emails"] == ["bob@example.com"]
    assert result.fields["phones"] == ["+8613812345678"]
    assert result.fields["money"] == [{"amount": "5000", "currency": "CNY"}]


def test_folder_packs_are_loaded(tmp_path: Path) -> None:
    (tmp_path / "shop.yaml").write_text(PACK, encoding="utf-8")
    engine = RuleEngine(rules_dir=tmp_path)
    assert engine.extract("合计：¥12.50", pack="shop").fields["total"] == {"amount": "12.5", "currency": "CNY"}
    assert engine.match_task("receipt", "").name == "shop"


def test_broken_folder_pack_fails_by_name(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: bad\nrules: [{id: a, patterns: ['(']}]\n", encoding="utf-8")
    with pytest.raises(PackError, match=r"bad\.yaml"):
        RuleEngine(rules_dir=tmp_path)


@pytest.mark.backends("sqlite", "postgresql")
def test_uploaded_packs_persist_per_tenant(storage: SQLiteStorage | PostgresStorage) -> None:
    engine = RuleEngine(open_pack_store(storage))
    pack, created = engine.add_pack(PACK, tenant="acme")
    assert created and pack.name == "shop"
    assert "rules_0001_packs" in storage.applied_migrations()
    again = RuleEngine(open_pack_store(storage))
    assert again.extract("合计 30元", pack="shop", tenant="acme").fields["total"]["amount"] == "30"
    with pytest.raises(NotFound):
        again.extract("合计 30元", pack="shop", tenant="globex")
    assert again.render(template_id="shop", data={"total": {"amount": "30"}}, tenant="acme") == "共 30 元"


@pytest.mark.backends("sqlite", "postgresql")
def test_upload_cannot_shadow_a_builtin_pack(storage: SQLiteStorage | PostgresStorage) -> None:
    with pytest.raises(Conflict):
        RuleEngine(open_pack_store(storage)).add_pack("name: generic\nrules: [{id: a, patterns: [x]}]\n")


def test_catastrophic_pattern_completes_on_a_long_input() -> None:
    pattern = compile_pattern(r"(a+)+$")
    assert pattern.engine == "re2"
    assert pattern.search("a" * 100_000 + "b") is None


def test_pattern_re2_cannot_run_falls_back_with_a_time_limit() -> None:
    from lastline.rules import PatternTimeout

    pattern = compile_pattern(r"(?<=x)(a+)+\1$")
    assert pattern.engine == "regex"
    with pytest.raises(PatternTimeout):
        pattern.search("x" + "a" * 50_000 + "b")


@pytest.mark.parametrize("template", [
    "{{ ''.__class__.__mro__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ data.__init__.__globals__ }}",
    "{% for i in range(10**7) %}x{% endfor %}",
    "{{ data.update({'a': 1}) }}",
    "{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}"
    "{% endfor %}{% endfor %}{% endfor %}",
    "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endfor %}",
    "{{ 'a' * 1000000000 }}",
    "{{ 10 ** 10000000 }}",
])
def test_templates_refuse_access_to_internals(template: str) -> None:
    with pytest.raises(InvalidInput):
        render_template(template, {"data": {"a": 0}, "xs": list(range(1000))})


def test_template_strict_undefined_and_rendering(engine: RuleEngine) -> None:
    with pytest.raises(InvalidInput, match="undefined"):
        render_template("{{ missing }}", {})
    assert render_template("Hello {{ name }}", {"name": "王"}) == "Hello 王"
    text = engine.render(template_id="contract_zh", data=engine.extract("甲方：A公司\n乙方：B公司").fields)
    assert "A公司" in text and "B公司" in text


def test_render_needs_exactly_one_source(engine: RuleEngine) -> None:
    with pytest.raises(InvalidInput):
        engine.render(data={})
    with pytest.raises(NotFound):
        engine.render(template_id="contract_zh.nope", data={})


def test_runtime_rules_reads_the_rules_dir_setting(tmp_path: Path) -> None:
    from lastline import load_settings
    from lastline.api.ladder.runtime import Runtime

    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "shop.yaml").write_text(PACK, encoding="utf-8")
    runtime = Runtime.open(load_settings(db=tmp_path / "x.db", rules_dir=rules_dir))
    try:
        assert runtime.rules.pack("shop").name == "shop"
        assert runtime.rules.match_task("receipt", "").name == "shop"
    finally:
        runtime.close()


def test_default_rules_dir_is_data_rules() -> None:
    from lastline import load_settings

    assert load_settings().rules_dir == Path("data/rules")


def test_a_timed_out_fallback_pattern_is_an_error_not_a_hang() -> None:
    slow = "name: slow\nrules:\n  - id: x\n    patterns: ['(?<=x)(a+)+\\1$']\n"
    from lastline.rules.extract import extract_fields

    result = extract_fields(load_pack(parse_pack_yaml(slow)), "x" + "a" * 30_000 + "b")
    assert result.fields == {"x": None}
    assert result.valid is False
    assert any("ran past" in e for e in result.errors)


def test_document_language_decides_the_yen_sign() -> None:
    engine = RuleEngine()
    zh = engine.extract("甲方：A公司\n合同金额：¥5,000", pack="contract_zh").fields["amount"]
    assert zh == {"amount": "5000", "currency": "CNY"}
