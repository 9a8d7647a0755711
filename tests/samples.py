"""Small inputs several test files share."""

# CR 702.26a: a permanent with phasing phases out in its controller's untap step.
GOOD_SCENARIO = """\
scenario "a phasing creature phases out in its controller's untap step" {
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    next turn
    expect djinn.phase is out
  }
}
"""
