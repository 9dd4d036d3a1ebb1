"""A short sample of the chaos run (tests/bench/chaos.py runs the long one)."""

from chaoskit import Chaos


def test_chaos_sample_loses_and_duplicates_nothing(tmp_path):
    report = Chaos(tmp_path, games=6, seconds=25, drop_rate=0.08, seed=7).run()
    assert report["node-kills"] == 1 and report["store-restarts"] == 1
    assert report["moves"] > 50
    assert report["drops"] > 0
    assert report["lost"] == 0, report
    assert report["duplicated"] == 0, report
    assert report["mismatched"] == 0, report
