"""The run files' JSON layout: the same value as json.dumps, a table's rows one per line."""

import json

from hypothesis import given, strategies as st

from bufferlab import jsonfile

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4), max_leaves=20)


@given(st.dictionaries(st.text(max_size=6), values | st.lists(st.dictionaries(st.text(max_size=4), scalars, max_size=3), max_size=4), max_size=6))
def test_loads_back_to_the_same_value(doc):
    assert json.loads(jsonfile.dumps(doc)) == doc
    assert json.loads(jsonfile.dumps(doc, sort_keys=True)) == doc


def test_rows_one_per_line_and_the_rest_indented():
    doc = {"engine": {"events": 3, "version": "x"}, "flows": [{"id": "a", "goodput_bps": 1.5}, {"id": "b"}], "empty": []}
    text = jsonfile.dumps(doc)
    assert text.endswith("}\n")
    lines = text.splitlines()
    assert '    {"id": "a", "goodput_bps": 1.5},' in lines
    assert '    {"id": "b"}' in lines
    assert '    "events": 3,' in lines
    assert '  "empty": []' in lines


@given(st.lists(st.dictionaries(st.text(max_size=6), values, max_size=5), max_size=5), st.booleans())
def test_a_row_reads_as_json_dumps_writes_it(rows, sort_keys):
    # The row encoder made once (jsonfile._row_encoder) writes each row as json.dumps would.
    row = jsonfile._row_encoder(sort_keys)
    assert [row(x) for x in rows] == [json.dumps(x, sort_keys=sort_keys) for x in rows]
    assert row.__name__ == "fast"  # CPython's C encoder serves it
