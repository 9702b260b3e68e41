"""Knowledge base quickstart: ingest the demo folder, search it, answer from it (no LLM, no network).

Run: python docs/examples/kb_quickstart.py [DB_PATH]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from lastline import get_embedder, open_storage
from lastline.kb import KnowledgeBase

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


def main(db: Path) -> None:
    kb = KnowledgeBase(open_storage(db), get_embedder("use"))
    report = kb.ingest(DEMO, tenant="default", collection="handbook", sync=True)
    print(report.summary())

    for hit in kb.search("how do I calibrate the threshold", k=3, filters={"collection": "handbook"}):
        print(f"{hit.score:.4f}  {hit.doc_id}  {' > '.join(hit.heading)}  {hit.span}")

    answer = kb.answer("为什么写操作会被拒绝？")
    if answer is not None:
        print(answer.confidence.value, answer.answer)
        print("cited:", [c.doc_id for c in answer.citations])

    kb.add_document(tenant="default", title="Travel policy", text="Hotels up to 150 euros a night.",
                    source="policy.txt", metadata={"owner": "hr"}, doc_id="policy-1")
    print(kb.search("hotel budget", k=1, filters={"metadata": {"owner": "hr"}})[0].text)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "kb.db")
