"""Read side of ClickHouse: one module per report area, SQL constants with bound %(name)s values."""
