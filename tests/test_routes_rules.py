"""``/v1/rules/*`` on a real server: entities, extract, render, repair, match and pack uploads."""

from __future__ import annotations

import httpx
import pytest
from conftest import LiveServer

pytestmark = pytest.mark.backends("sqlite", "postgresql")

CONTRACT = ("合同编号：HT-2024-0815\n甲方（买方）：北京星辰科技有限公司\n乙方（卖方）：上海明远贸易有限公司\n"
            "签订日期：2024年6月15日\n合同金额：人民币伍拾万元整（¥500,000.00）\n")
SHOP = "name: shop_http\nrules:\n  - id: total\n    patterns: ['合计\\s*(?P<value>[^\\n]+)']\n    normalizer: money\n"


def post(server: LiveServer, path: str, body: object) -> httpx.Response:
    return httpx.post(server.url(path), json=body, timeout=30)


def test_entities_returns_contract_shape(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/entities",
             {"text": "下周三下午3点付人民币伍拾万元整", "reference_time": "2024-06-12T10:00:00"})
    assert r.status_code == 200
    entities = r.json()["entities"]
    assert entities == [
        {"type": "datetime", "text": "下周三下午3点", "start": 0, "end": 7, "value": "2024-06-19T15:00:00"},
        {"type": "money", "text": "人民币伍拾万元整", "start": 8, "end": 16,
         "value": {"amount": "500000", "currency": "CNY"}},
    ]


def test_entities_type_filter_and_unknown_type(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/entities", {"text": "5000元 和 15%", "types": ["percent"]})
    assert [e["type"] for e in r.json()["entities"]] == ["percent"]
    bad = post(live_server, "/v1/rules/entities", {"text": "x", "types": ["colour"]})
    assert bad.status_code == 422


def test_entities_lang_decides_the_yen_sign(live_server: LiveServer) -> None:
    zh = post(live_server, "/v1/rules/entities", {"text": "¥500", "lang": "zh"}).json()["entities"]
    en = post(live_server, "/v1/rules/entities", {"text": "¥500", "lang": "en"}).json()["entities"]
    assert zh[0]["value"]["currency"] == "CNY" and en[0]["value"]["currency"] == "JPY"


def test_extract_fills_fields_and_lists_missing(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/extract", {"text": CONTRACT, "pack": "contract_zh"})
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"fields", "missing", "valid", "errors", "rule_ids"}
    assert body["fields"]["amount"] == {"amount": "500000", "currency": "CNY"}
    assert body["fields"]["penalty_rate"] is None and "penalty_rate" in body["missing"]
    assert body["valid"] is True


def test_extract_unknown_pack_is_404_with_error_shape(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/extract", {"text": "x", "pack": "nope"})
    assert r.status_code == 404
    assert r.json()["error"] == "not_found"


def test_render_inline_and_pack_template(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/render", {"template": "甲方：{{ party_a }}", "data": {"party_a": "A公司"}})
    assert r.json() == {"text": "甲方：A公司"}
    r = post(live_server, "/v1/rules/render", {"template_id": "contract_zh", "data": {"party_a": "A", "party_b": "B"}})
    assert r.status_code == 200 and "A" in r.json()["text"]


@pytest.mark.parametrize("template", ["{{ ''.__class__.__mro__ }}", "{{ missing }}", "{% for %}"])
def test_render_refuses_unsafe_undefined_and_broken_templates(live_server: LiveServer, template: str) -> None:
    r = post(live_server, "/v1/rules/render", {"template": template, "data": {}})
    assert r.status_code == 422
    assert r.json()["error"] == "invalid_input"


def test_repair_and_refusal(live_server: LiveServer) -> None:
    assert post(live_server, "/v1/rules/repair", {"text": "```json\n{'a': 1,}\n```"}).json() == {"value": {"a": 1}}
    r = post(live_server, "/v1/rules/repair", {"text": '{"a": }'})
    assert r.status_code == 422


def test_match_picks_the_contract_pack(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/match", {"text": "甲方与乙方签订本合同，违约金为百分之五"})
    assert r.json() == {"pack": "contract_zh"}


def test_pack_upload_list_use_and_delete(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/packs", {"yaml": SHOP})
    assert r.status_code == 201, r.text
    assert post(live_server, "/v1/rules/packs", {"yaml": SHOP}).status_code == 200
    names = [p["name"] for p in httpx.get(live_server.url("/v1/rules/packs")).json()["packs"]]
    assert "shop_http" in names and "contract_zh" in names
    r = post(live_server, "/v1/rules/extract", {"text": "合计 ¥30", "pack": "shop_http"})
    assert r.json()["fields"]["total"] == {"amount": "30", "currency": "CNY"}
    assert httpx.delete(live_server.url("/v1/rules/packs/shop_http")).status_code == 204
    assert httpx.delete(live_server.url("/v1/rules/packs/shop_http")).status_code == 404


def test_invalid_pack_upload_names_rule_and_field(live_server: LiveServer) -> None:
    bad = "name: bad\nrules:\n  - id: total\n    patterns: ['(']\n"
    r = post(live_server, "/v1/rules/packs", {"yaml": bad})
    assert r.status_code == 422
    assert r.json()["error"] == "invalid_rule_pack"
    assert "rule 'total'" in r.json()["detail"] and "patterns[0]" in r.json()["detail"]


def test_upload_cannot_replace_a_builtin(live_server: LiveServer) -> None:
    r = post(live_server, "/v1/rules/packs", {"yaml": "name: contract_zh\nrules: [{id: a, patterns: [x]}]\n"})
    assert r.status_code == 409


def test_uploaded_packs_are_per_tenant(tenant_server: LiveServer) -> None:
    a = {"Authorization": "Bearer key-a"}
    b = {"Authorization": "Bearer key-b"}
    r = httpx.post(tenant_server.url("/v1/rules/packs"), json={"yaml": SHOP}, headers=a)
    assert r.status_code == 201
    r = httpx.post(tenant_server.url("/v1/rules/extract"), json={"text": "合计 5元", "pack": "shop_http"}, headers=b)
    assert r.status_code == 404
