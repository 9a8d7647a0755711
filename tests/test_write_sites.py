"""Which attributes two writes of one batch can set to different values (`interpreter.program.write_sites`),
as generated code uses it to keep the writes that change nothing only where a conflict can be."""

from phasing_rules.interpreter.program.write_sites import UNKNOWN, WriteSites, contested


def sites(opaque=False, **values):
    return WriteSites({attr: frozenset(tokens) for attr, tokens in values.items()}, opaque)


def test_one_value_per_attribute_contests_nothing():
    """Every writer of tapped writes false: no two writes can disagree about it."""
    assert contested([sites(tapped={("literal", False)}), sites(tapped={("literal", False)})]) == frozenset()


def test_two_values_of_one_attribute_are_contested():
    """One writer taps, another untaps: a write that leaves tapped as it is may meet one that changes it."""
    assert contested([sites(tapped={("literal", True)}), sites(tapped={("literal", False)}, phase={("name", "out")})]) \
        == frozenset({"tapped"})


def test_a_value_worked_out_is_contested_even_alone():
    """An expression may come out differently for two objects or two runs of one site."""
    assert contested([sites(phased_out_under={UNKNOWN})]) == frozenset({"phased_out_under"})


def test_an_opaque_writer_may_write_anything():
    """A function that runs statements it does not write out: every attribute is contested (None)."""
    assert contested([sites(tapped={("literal", False)}), sites(opaque=True)]) is None

