"""Reports: the read API behind the report pages (tests CRUD, summary, charts, tables, monitoring, config)."""
