"""The layouts every other module derives from: one definition per concept.

- `seconds`: one per-second aggregate row (what the tank pushes, what phout aggregates to, what
  `second_aggregates` stores), the quantile levels it carries.
- `samples`: one sample (a phout line or any generator's request record) as columns.
- `codes`: the net codes with a meaning of their own: the generators' (Pandora's discarded 777, ...), which are
  not the server's, and the errno of a timeout.

Modules that read, write or compute these rows import the names from here and build their own views (struct
formats, ClickHouse column lists, numpy dtypes) from them, so a new field is added in one place.
"""
