"""Small real files of every format the KB reads, made on the spot for tests."""

from __future__ import annotations

from pathlib import Path


def make_pdf(path: Path, pages: list[list[str]], title: str | None = None) -> Path:
    """A minimal hand-written PDF (Helvetica text, one content stream per page) with a valid xref."""
    objects: list[bytes] = []
    n_pages = len(pages)
    page_ids = [3 + 2 * i for i in range(n_pages)]
    font_id = 3 + 2 * n_pages
    info_id = font_id + 1
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{i} 0 R" for i in page_ids).encode()
    objects.append(b"<< /Type /Pages /Kids [" + kids + b"] /Count " + str(n_pages).encode() + b" >>")
    for i, lines in enumerate(pages):
        content_id = page_ids[i] + 1
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R"
            f" /Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        ops = ["BT", "/F1 12 Tf", "72 720 Td"]
        for j, line in enumerate(lines):
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(("0 -16 Td " if j else "") + f"({escaped}) Tj")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(f"<< /Title ({title or ''}) >>".encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R"
    trailer += f" /Info {info_id} 0 R" if title else ""
    out += (trailer + f" >>\nstartxref\n{xref}\n%%EOF\n").encode()
    path.write_bytes(bytes(out))
    return path


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Refund policy", level=0)
    document.add_heading("Eligibility", level=1)
    document.add_paragraph("Orders can be refunded within 30 days of delivery.")
    document.add_heading("Exceptions", level=2)
    document.add_paragraph("Gift cards are never refunded.")
    document.add_heading("Process", level=1)
    document.add_paragraph("Open a ticket with the order number.")
    document.save(str(path))
    return path


MARKDOWN = """# Service handbook

Intro paragraph about the service.

## Refunds

Refunds are paid back to the original card within five working days.

### Exceptions

Gift cards are never refunded.

## 退款

退款会在五个工作日内原路退回。
"""

HTML = """<html><head><title>Shipping guide</title><script>var x = 1;</script></head>
<body><nav>menu</nav><h1>Shipping</h1><p>We ship worldwide.</p>
<h2>Costs</h2><p>Standard shipping costs 5 euros.</p><ul><li>Express: 15 euros</li></ul></body></html>"""

FAQ_CSV = """question,answer,topic,tags
How long do refunds take?,Refunds take five working days.,billing,"money,refund"
怎么修改收货地址？,在订单详情页点击修改地址即可。,shipping,address
"""

FAQ_JSONL = (
    '{"question": "Can I cancel an order?", "answer": "Yes, until it ships.", "channel": "web"}\n'
    '{"question": "如何取消订单？", "answer": "发货前可以在订单页取消。", "channel": "app"}\n'
)

BEIR_JSONL = (
    '{"_id": "d1", "title": "Vitamin D", "text": "Vitamin D deficiency is linked to bone loss."}\n'
    '{"_id": "d2", "title": "", "text": "Aspirin reduces the risk of heart attack in some adults."}\n'
)


def write_folder(root: Path) -> Path:
    """A folder with one file of each format."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "handbook.md").write_text(MARKDOWN, encoding="utf-8")
    (root / "shipping.html").write_text(HTML, encoding="utf-8")
    (root / "notes.txt").write_text("Support hours\n\nWe answer tickets from 9 to 17 on weekdays.\n", encoding="utf-8")
    (root / "faq.csv").write_text(FAQ_CSV, encoding="utf-8")
    (root / "more_faq.jsonl").write_text(FAQ_JSONL, encoding="utf-8")
    (root / "corpus.jsonl").write_text(BEIR_JSONL, encoding="utf-8")
    make_pdf(root / "warranty.pdf", [["Warranty terms", "Every device has a two year warranty."],
                                      ["Batteries are covered for one year."]], title="Warranty")
    make_docx(root / "refunds.docx")
    return root
