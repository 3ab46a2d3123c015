"""The top-level Python API."""
import doctest

import treegen


def test_docstring_examples_run():
    assert doctest.testmod(treegen).failed == 0


def test_save_load_and_export(tmp_path):
    model = treegen.train("examples/play_tennis.csv", algorithm="id3")
    treegen.save(model, str(tmp_path / "m.json"))
    (tmp_path / "m.rules").write_text(treegen.export(model, "rules"), encoding="utf-8")
    for path in ("m.json", "m.rules"):
        again = treegen.load(str(tmp_path / path))
        assert again.predict({"outlook": "rain", "wind": "strong"}) == "no"
