"""Runners: start generated programs for real (a Python subprocess, javac + java, SQL engines) and
return what they print. ``treegen verify`` and the tests use them."""
