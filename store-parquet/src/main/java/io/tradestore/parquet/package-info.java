/**
 * Apache Parquet out of and into tradestore: a table's committed segments exported as Hive-style day partitions that
 * Spark, Trino, DuckDB and ClickHouse read natively, incrementally through a manifest, and Parquet files loaded into a
 * table. See docs/parquet.md for the layout and the type mapping.
 */
package io.tradestore.parquet;
