"""`make pgo`'s training set: every run it names is one the engine accepts, so that the
profile-guided build does not stop halfway on a moved or broken scenario."""

import pytest

from bufferlab.bench import packaged
from bufferlab.pgo import TRAINING, training_set
from bufferlab.scenario import load_scenario


@pytest.mark.parametrize("target,seconds", training_set(), ids=[name for name, _ in TRAINING])
def test_each_training_run_is_accepted(target, seconds):
    from bufferlab import _core

    if isinstance(target, str):
        assert target in _core.bench_names()
    else:
        over = {"run.duration": f"{seconds}s", "run.measure": ["0s", f"{seconds}s"]}
        load_scenario(target, overrides=over)  # the engine's own check included


def test_the_set_leaves_out_what_its_gain_is_also_judged_on():
    names = {name.rsplit("/", 1)[-1].removesuffix(".toml") for name, _ in TRAINING}
    assert "stanford-10G-10000" in packaged() and "stanford-10G-10000" not in names
    assert "dumbbell-100M-500" not in names
