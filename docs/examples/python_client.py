"""The typed Python client: cache, fallback ladder, refused writes, write-back of chat answers.

Run a server first (`lastline serve`), then: python docs/examples/python_client.py
"""

import os

from lastline import NoDegradedWrites, NoFallbackAnswer
from lastline.api.integrations.client import LastlineClient

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")

with LastlineClient(LASTLINE, api_key=os.environ.get("LASTLINE_API_KEY")) as ll:
    # Store a good answer while the provider works …
    entry_id = ll.cache_put("What is the refund window?", "30 days from delivery.", tags=["faq"])
    print("stored:", entry_id)
    print("lookup:", ll.cache_lookup("What is the refund window?").layer)

    # … and get it back through the ladder when it does not.
    answer = ll.fallback("What is the refund window?")
    print(answer.answer, "|", answer.source.value, answer.confidence.value, "depth", answer.degradation_depth)

    # A chat answer from the upstream model, written back under the conversation's fingerprint.
    messages = [{"role": "system", "content": "You are the Acme help desk."},
                {"role": "user", "content": "Do you deliver on Sundays?"}]
    upstream = {"model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "No, deliveries run Monday to Saturday."}}]}
    print("written back:", ll.chat_writeback(messages, completion=upstream))

    try:
        ll.fallback("Refund order 1234 now", operation="write", idempotency_key="refund-1234")
    except NoDegradedWrites as refused:
        print("refused write, key:", refused.extra["idempotency_key"])
    try:
        ll.fallback("Which moon of Neptune is the coldest?")
    except NoFallbackAnswer:
        print("no fallback answer")
