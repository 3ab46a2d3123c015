"""Back ends: each target's module here turns a model into program text through Jinja templates
(``treegen/templates/<target>/``, see :mod:`treegen.emit.render`), with ``emit(model, **options) ->
str``. Back ends read the model and its lowering, never the learners. The table of targets, with
their options and runners, is :mod:`treegen.targets`."""
