"""``lastline rules …`` commands, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lastline.api", "rules", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, input=stdin)


def test_extract_file_with_pack_as_json(tmp_path: Path) -> None:
    doc = tmp_path / "contract.txt"
    doc.write_text("甲方：北京星辰科技有限公司\n乙方：上海明远贸易有限公司\n合同金额：人民币伍拾万元整\n",
                   encoding="utf-8")
    result = run("extract", str(doc), "--pack", "contract_zh", "--json", "--db", str(tmp_path / "x.db"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["fields"]["party_a"] == "北京星辰科技有限公司"
    assert body["fields"]["amount"] == {"amount": "500000", "currency": "CNY"}
    assert "sign_date" in body["missing"]


def test_entities_text_as_json(tmp_path: Path) -> None:
    result = run("entities", "refund order 123456 on 2024-06-15", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    types = [e["type"] for e in json.loads(result.stdout)["entities"]]
    assert types == ["order_id", "date"]


def test_unknown_pack_exits_2_with_one_line(tmp_path: Path) -> None:
    result = run("extract", "-", "--pack", "nope", "--db", str(tmp_path / "x.db"), cwd=tmp_path, stdin="x")
    assert result.returncode == 2
    assert result.stderr.startswith("error: no rule pack named 'nope'")


def test_repair_prints_json_or_refuses(tmp_path: Path) -> None:
    ok = run("repair", "-", cwd=tmp_path, stdin="```json\n{'a': [1, 2,\n```")
    assert json.loads(ok.stdout) == {"a": [1, 2]}
    bad = run("repair", "-", cwd=tmp_path, stdin='{"a": }')
    assert bad.returncode == 2


def test_add_pack_then_extract_with_it(tmp_path: Path) -> None:
    pack = tmp_path / "shop.yaml"
    pack.write_text("name: shop\nrules:\n  - id: total\n    patterns: ['合计\\s*(?P<value>\\S+)']\n"
                    "    normalizer: money\n", encoding="utf-8")
    db = str(tmp_path / "x.db")
    assert run("add-pack", str(pack), "--db", db, cwd=tmp_path).returncode == 0
    result = run("extract", "-", "--pack", "shop", "--json", "--db", db, cwd=tmp_path, stdin="合计 30元")
    assert json.loads(result.stdout)["fields"]["total"] == {"amount": "30", "currency": "CNY"}
