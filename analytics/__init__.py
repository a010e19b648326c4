"""Pure, typed analytics for load-test results: numpy in, dataclasses out.

No Django, no database driver, no I/O beyond what a caller hands in (a test imports this package with Django
absent). Parsers stream; statistics are deterministic functions of their inputs.
"""
