"""Questions the index and replica tests store, and paraphrases that must find them.

One list for both, so that what "a semantic hit" means in the FAISS-index tests is the same set of
pairs the replica tests check across processes.
"""

from __future__ import annotations

QUESTIONS = [
    "How do I reset my password?", "What is the refund window?", "Where is my parcel?",
    "Can I change my delivery address?", "How do I close my account?", "What payment methods do you accept?",
    "我想借五千元怎么操作", "怎么修改绑定的手机号", "还款日可以更改吗", "为什么借款审核没通过",
    "How long does shipping to Canada take?", "Do you offer student discounts?",
]
PARAPHRASES = [  # of QUESTIONS[0:6], in order
    "How can I reset my password?", "What's the refund window?", "Where is my package?",
    "Can I change the delivery address?", "How can I close my account?", "Which payment methods are accepted?",
]
