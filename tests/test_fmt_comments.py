"""`phasing fmt` keeps every comment (issue 43: "fmt keeps every comment"; docs/commands.md
promises comments kept byte for byte).

A rewrite edits only the words of the older form; a comment that stood in text a rewrite
deletes (inside a test of every value of a hiding status, say) is kept on a line of its own
just before the rewritten line. The property: for files in the older forms with comments in
every position (between any two words, at line ends, on lines of their own), the comments
after `rewrite` are the comments before (as a multiset), the text parses to the tree
`migrated_tree` says, no older form is left, the file's line ending is the only one in it,
and a second rewrite changes nothing.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phasing_rules.dsl import migrate
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.migrate import Vocabulary, migrated_tree, rewrite
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.cli import main

PHASE = Vocabulary({"phase": ("in", "out"), "phased_indirectly": ("true", "false")}, frozenset({"phase"}))


def scan(text: str) -> tuple[list[str], list[str]]:
    """(the comments, the other words and signs) of a text, read character by character: a
    string runs to its closing quote, a comment to the end of its line (LF, CR or CRLF).
    Written for these tests apart from `dsl.migrate`, to check it."""
    found_comments: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "#":
            j = i
            while j < len(text) and text[j] not in "\r\n":
                j += 1
            found_comments.append(text[i:j])
            i = j
        elif ch == '"':
            j = text.index('"', i + 1)
            words.append(text[i:j + 1])
            i = j + 1
        elif ch.isalnum() or ch in "_+-":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] in "_+-"):
                j += 1
            words.append(text[i:j])
            i = j
        elif ch.isspace():
            i += 1
        else:
            words.append(ch)
            i += 1
    return found_comments, words


# ------------------------------------------------------------------ the two cases the issue reports

def verb(body: str) -> str:
    return f"verb v x {{\n{body}}}\n"


def test_a_comment_between_not_and_its_parenthesis_stays_where_it_stands():
    """issue 43: `not # keep me` / `(x.attached_to is visible)` lost its comment; now only the
    words move (`not` and the parentheses out, `not` in after `is`)."""
    before = verb("  each x where x.controller is P and not # keep me\n"
                  "     (x.attached_to is visible): tap x\n")
    after = rewrite(before, "v.rules", PHASE)
    assert after == verb("  each x where x.controller is P and # keep me\n"
                         "     x.attached_to is not visible: tap x\n")


def test_comments_inside_an_or_over_both_values_of_a_hiding_status_move_before_the_line():
    """issue 43: an `or` over both values of `phase` spread over lines with comments: 3
    comments before, 0 after. The test is deleted, so its comments go on lines of their own
    just before the rewritten line, indented like it, in their order."""
    before = verb("  tap x  # before: stays\n"
                  "  each x where # c1\n"
                  "      (x.phase is in or # c2\n"
                  "       x.phase is out # c3\n"
                  "      ): tap x # after: stays\n")
    after = rewrite(before, "v.rules", PHASE)
    assert after == verb("  tap x  # before: stays\n"
                         "  # c1\n"
                         "  # c2\n"
                         "  # c3\n"
                         "  each x including hidden: tap x # after: stays\n")
    assert parse(after) == migrated_tree(parse(before), PHASE)


def test_a_comment_beside_a_deleted_conjunct_moves_and_the_others_stay():
    """issue 43: `(x.phase is in or x.phase is out) and ...` loses the test and its `and`;
    a comment among them moves before the line, one after the `and` that stays stays."""
    before = verb("  each x where x.tapped and # why\n"
                  "      (x.phase is in or x.phase is out) and # which\n"
                  "      x.token: tap x\n")
    after = rewrite(before, "v.rules", PHASE)
    assert after == verb("  # why\n"
                         "  each x including hidden where x.tapped and # which\n"
                         "      x.token: tap x\n")


def test_a_comment_before_the_verb_or_the_agreeing_word_is_no_reason_to_leave_the_old_form():
    """issue 43: `do # c` / `VERB` and `you # c` / `draws` are rewritten around the comment
    (they used to be left as they were, the comment between the words)."""
    before = verb("  do # which verb\n    phase_in x\n  you # who\n    draws 1\n") + "verb phase_in x {\n  tap x\n}\n"
    after = rewrite(before, "v.rules", PHASE)
    assert after == verb("  # which verb\n    phase_in x\n  you # who\n    draw 1\n") + "verb phase_in x {\n  tap x\n}\n"


def test_fmt_write_keeps_the_comments_of_the_file_it_writes(tmp_path, capsys):
    """issue 43, through the command: `fmt --write` on the reported file keeps all 3 comments."""
    path = tmp_path / "a.rules"
    text = ("rule 999.1 old-forms \"x\" {\n  during cleanup of P: {\n"
            "    each x where x.phase is in or # one\n      # two\n      x.phase is out: # three\n      tap x\n  }\n}\n")
    path.write_text(text, encoding="utf-8")
    assert main(["fmt", "--write", str(path)]) == 0
    written = path.read_text(encoding="utf-8")
    assert scan(written)[0] == ["# one", "# two", "# three"], written
    assert "including hidden" in written


def test_a_rewrite_that_would_lose_a_comment_is_refused_and_nothing_is_written(tmp_path, capsys, monkeypatch):
    """issue 43 ("leaves that form unrewritten and says so"): the safeguard behind the
    rewrites. Were an edit ever to drop a comment, the file is left as it is and fmt says so
    at the comment, exit 1; here an `_apply` that forgets displaced comments stands in for
    such a mistake."""
    apply = migrate._apply
    monkeypatch.setattr(migrate, "_apply", lambda text, lines, edits: apply(
        text, lines, [e._replace(displaced=()) for e in edits]))
    text = verb("  each x where x.phase is in or # lost?\n    x.phase is out: tap x\n")
    with pytest.raises(DiagnosticError) as caught:
        rewrite(text, "v.rules", PHASE)
    (diagnostic,) = caught.value.diagnostics
    assert "would not keep this comment" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 33)  # (the `#` of `# lost?`)
    path = tmp_path / "v.rules"
    path.write_text(text, encoding="utf-8")
    assert main(["fmt", "--write", str(path)]) == 1
    assert "would not keep this comment" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text


# ------------------------------------------------------------------ the property

_OPEN = "("
_CLOSE = ")"


def _test_of_every_value(v: str) -> list[str]:
    return [v, ".", "phase", "is", "in", "or", v, ".", "phase", "is", "out"]


def _wrapped(tokens: list[str], times: int) -> list[str]:
    return [_OPEN] * times + tokens + [_CLOSE] * times


@st.composite
def _conjunct(draw, v: str) -> list[str]:
    """A condition that stays: plain, `not (... is visible)`, a string with `#` in it, a nested
    old-form count."""
    kind = draw(st.sampled_from(["plain", "not visible", "string", "count"]))
    if kind == "plain":
        return [v, ".", "tapped"]
    if kind == "not visible":
        return ["not"] + _wrapped([v, ".", "attached_to", "is", "visible"], draw(st.integers(0, 2)))
    if kind == "string":
        return [v, ".", "name", "is", '"# not a comment (a string)"']
    return ["count", "(", "z", "where"] + _wrapped(_test_of_every_value("z"), draw(st.integers(0, 1))) + [")", ">", "0"]


@st.composite
def _query_condition(draw, v: str) -> list[str]:
    """An old-form query condition: the test of every value alone, or one conjunct among others."""
    test = _wrapped(_test_of_every_value(v), draw(st.integers(0, 2)))
    others = draw(st.lists(_conjunct(v), min_size=0, max_size=2))
    if not others:
        return test
    test = _wrapped(_test_of_every_value(v), draw(st.integers(1, 2)))  # (a conjunct `or` needs them)
    at = draw(st.integers(0, len(others)))
    parts = others[:at] + [test] + others[at:]
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + ["and"] + part
    return _wrapped(joined, draw(st.integers(0, 1)))


@st.composite
def _statement(draw) -> list[str]:
    kind = draw(st.sampled_from(["do", "draws", "gains", "control", "gets", "not visible", "each", "each object", "count"]))
    v = draw(st.sampled_from(["y", "z"]))
    body = draw(st.sampled_from([["tap", v], ["do", "phase_in", v]]))
    if kind == "do":
        return ["do", "phase_in", "x"]
    if kind == "draws":
        return ["you", "draws", "2"]
    if kind == "gains":
        return ["you", "gains", "3", "life"]
    if kind == "control":
        return ["you", "gains", "control", "of", "x"]
    if kind == "gets":
        return ["you", "gets", "+1", "/", "+1"]
    if kind == "not visible":
        return ["if", "not"] + _wrapped(["x", ".", "attached_to", "is", "visible"], draw(st.integers(0, 2))) + [":", "tap", "x"]
    if kind in ("each", "each object"):
        head = ["each", "object", v] if kind == "each object" else ["each", v]
        return head + ["where"] + draw(_query_condition(v)) + [":"] + body
    return ["if", "count", "(", v, "where"] + draw(_query_condition(v)) + [")", ">", "0", ":", "tap", "x"]


# What a comment may say: anything on one line, words of the language and `#`, `"`, `(` too.
_comment_text = st.lists(st.sampled_from(list("ab #\"()\t:é") + ["not ", "where ", "is visible"]), max_size=8).map("".join)


@st.composite
def _gap(draw) -> str:
    """What stands between two words: a space, a line end, or comments at line ends and on
    lines of their own."""
    kind = draw(st.sampled_from(["space", "space", "line", "end comment", "own line", "two"]))
    if kind == "space":
        return " "
    if kind == "line":
        return "\n      "
    first = "#" + draw(_comment_text)
    if kind == "end comment":
        return f" {first}\n      "
    if kind == "own line":
        return f"\n  {first}\n      "
    return f"  {first}\n#{draw(_comment_text)}\n  "


@st.composite
def _old_file(draw) -> str:
    statements = draw(st.lists(_statement(), min_size=1, max_size=4))
    lines = []
    for tokens in statements:
        gaps = draw(st.lists(_gap(), min_size=len(tokens) - 1, max_size=len(tokens) - 1))
        text = tokens[0] + "".join(gap + token for gap, token in zip(gaps, tokens[1:]))
        lines.append("  " + text + draw(st.sampled_from(["", "  # at the end " + draw(_comment_text)])))
    return ("# heading" + draw(_comment_text) + "\n"
            "verb phase_in x {\n  tap x\n}\n\n"
            "verb v x {\n" + "\n".join(lines) + "\n}\n# last\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=_old_file(), line_end=st.sampled_from(["\n", "\r\n", "\r"]))
def test_rewriting_keeps_the_multiset_of_comments_and_leaves_no_old_form(text, line_end):
    """issue 43: comments in every position of old-form files (between any two words, at line
    ends, on lines of their own) are all there after `rewrite`, each as many times; the
    result parses to the tree `migrated_tree` says, has no older form left, keeps the file's
    line ending (issue 43: LF, CRLF and a lone CR read alike, each kept), and is stable."""
    text = text.replace("\n", line_end)
    tree = parse(text, "g.rules")
    after = rewrite(text, "g.rules", PHASE)
    assert Counter(scan(after)[0]) == Counter(scan(text)[0]), after
    assert parse(after, "g.rules") == migrated_tree(tree, PHASE)
    words = scan(after)[1]
    assert "do" not in words, after  # every `do phase_in` rewritten, even with a comment after `do`
    for before_word, word in zip(words, words[1:]):
        assert not (before_word == "you" and word in ("draws", "gains", "gets")), after
        assert word != "not" or before_word == "is", after  # `not (X is visible)` gone
    assert after.replace(line_end, "").count("\r") == 0 and after.replace(line_end, "").count("\n") == 0
    assert rewrite(after, "g.rules", PHASE) == after
