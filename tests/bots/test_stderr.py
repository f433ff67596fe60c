"""A bot's stderr kept and shown by one class: bounded, marked, shown line by line up to a limit."""

from __future__ import annotations

from tricktable.bots.stderr import LINE_PIECE_BYTES, OutputTail


def test_only_the_last_bytes_are_kept_however_much_is_written() -> None:
    tail = OutputTail(keep=1024)
    for _ in range(100):
        tail.feed(b"y" * 999 + b"\n")
    assert tail.total == 100_000 and len(tail.text().encode()) == 1024 and tail.text().endswith("y\n")


def test_text_since_a_mark_is_only_what_came_after_it() -> None:
    tail = OutputTail(keep=1024)
    tail.feed(b"first match\n")
    mark = tail.mark()
    assert tail.text(since=mark) == ""
    tail.feed(b"second match\n")
    assert tail.text(since=mark) == "second match\n"
    tail.feed(b"z" * 5000)
    assert len(tail.text(since=mark)) == 1024


def test_the_first_lines_are_shown_then_one_notice_and_the_rest_only_counted() -> None:
    shown: list[str] = []
    tail = OutputTail(show=shown.append, show_lines=2)
    tail.feed(b"one\ntwo\nthr")
    tail.feed(b"ee\nfour\n")
    assert shown[:2] == ["one", "two"] and len(shown) == 3 and "not shown" in shown[2]
    assert tail.lines == 4 and tail.hidden == 2


def test_a_line_without_end_is_shown_in_pieces_and_its_last_piece_at_the_end() -> None:
    shown: list[str] = []
    tail = OutputTail(show=shown.append)
    tail.feed(b"a" * (LINE_PIECE_BYTES + 1))
    tail.feed(b"tail")
    tail.end()
    assert shown == ["a" * (LINE_PIECE_BYTES + 1), "tail"]
