"""The only package that imports clickhouse_driver. Everything else calls `client.execute` / `insert_columns`."""
