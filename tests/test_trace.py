"""The trace (`interpreter.game.trace.Trace`): changes kept as records read back as Events."""

from __future__ import annotations

from types import SimpleNamespace

from phasing_rules.interpreter.game.trace import SCRIPT, Event, Trace


def change(subject: str, new: str, old: str) -> SimpleNamespace:
    """A change record as the engine gives one (its writes have these fields)."""
    return SimpleNamespace(obj=subject, cause=SCRIPT, attr="phase", value=new, old=old)


def test_a_change_record_reads_back_as_the_event_it_stands_for():
    trace = Trace([Event("step", "Alice", "untap step", SCRIPT)])
    trace.changes(1, [change("djinn", "out", "in")])
    assert len(trace) == 2
    event = trace[1]
    assert type(event) is Event
    assert (event.kind, event.subject, event.text, event.step) == ("change", "djinn", None, 1)
    assert event.values() == {"attr": "phase", "new": "out", "old": "in"}
    assert event.render() == "[scenario script] djinn: phase: in -> out"
    assert trace[1] is event  # made once, kept in place


def test_reading_in_every_way_gives_events_in_order():
    trace = Trace()
    trace.changes(1, [change("a", "out", "in"), change("b", "in", "out")])
    trace.append(Event("step", "Alice", "cleanup step", SCRIPT))
    trace.changes(2, [change("c", "out", "in")])
    subjects = ["a", "b", "Alice", "c"]
    assert [e.subject for e in trace] == subjects
    assert [e.subject for e in trace[1:3]] == subjects[1:3]
    assert (trace[-1].subject, trace[-1].step, trace[0].step) == ("c", 2, 1)
    assert all(type(e) is Event for e in tuple(trace))


def test_an_iteration_goes_on_to_what_is_added_while_it_runs():
    trace = Trace()
    trace.changes(1, [change("a", "out", "in")])
    seen = []
    for event in trace:
        seen.append(event)
        if len(seen) == 1:
            trace.changes(1, [change("b", "in", "out")])
    assert [(type(e), e.subject) for e in seen] == [(Event, "a"), (Event, "b")]


def test_two_traces_are_equal_when_their_events_are():
    first, second = Trace(), Trace([Event("change", "a", None, SCRIPT, 1, ("attr", "phase", "new", "out", "old", "in"))])
    first.changes(1, [change("a", "out", "in")])
    assert first == second
    second.changes(1, [change("b", "out", "in")])
    assert first != second


def test_a_change_made_in_a_batch_carries_its_number_and_the_one_it_follows():
    trace = Trace()
    trace.changes(1, [change("a", "out", "in")], 3)
    trace.changes(1, [change("b", "in", "out")], 4, 3)
    assert trace[0].values() == {"attr": "phase", "batch": 3, "new": "out", "old": "in"}
    assert trace[1].values() == {"attr": "phase", "batch": 4, "follows": 3, "new": "in", "old": "out"}
    data = trace[1].to_json()
    assert {k: data[k] for k in ("object", "attribute", "old", "new", "batch", "follows")} == {
        "object": "b", "attribute": "phase", "old": "out", "new": "in", "batch": 4, "follows": 3}
