"""Random ids drawn in blocks (lastline.ids): uuid4's form, never repeated across threads or a fork."""

from __future__ import annotations

import multiprocessing
import re
import threading
import uuid

from lastline.ids import BLOCK_IDS, random_hex_id

HEX_ID = re.compile(r"[0-9a-f]{32}")


def test_an_id_has_the_form_uuid4_hex_gives() -> None:
    for _ in range(3 * BLOCK_IDS):  # across block boundaries
        value = random_hex_id()
        assert HEX_ID.fullmatch(value)
        parsed = uuid.UUID(hex=value)
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_ids_do_not_repeat_across_blocks() -> None:
    drawn = [random_hex_id() for _ in range(20 * BLOCK_IDS)]
    assert len(set(drawn)) == len(drawn)


def test_threads_drawing_at_once_never_share_an_id() -> None:
    per_thread: list[list[str]] = [[] for _ in range(8)]
    start = threading.Barrier(len(per_thread))

    def draw(into: list[str]) -> None:
        start.wait()
        into.extend(random_hex_id() for _ in range(5 * BLOCK_IDS))

    threads = [threading.Thread(target=draw, args=(ids,)) for ids in per_thread]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    drawn = [value for ids in per_thread for value in ids]
    assert len(drawn) == 8 * 5 * BLOCK_IDS
    assert len(set(drawn)) == len(drawn)


def _draw_into(queue: multiprocessing.SimpleQueue[list[str]]) -> None:  # type: ignore[type-arg]
    queue.put([random_hex_id() for _ in range(BLOCK_IDS)])


def test_a_forked_child_does_not_repeat_its_parents_ids() -> None:
    random_hex_id()  # the parent holds a block with ids left in it
    context = multiprocessing.get_context("fork")
    queue = context.SimpleQueue()
    child = context.Process(target=_draw_into, args=(queue,))
    child.start()
    from_child = queue.get()
    child.join(timeout=30)
    from_parent = [random_hex_id() for _ in range(BLOCK_IDS)]
    assert child.exitcode == 0
    assert not set(from_child) & set(from_parent)
